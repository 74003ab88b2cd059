package screen

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
)

// The cost of screening one proposal, at the sizes a record can take:
// a typical record (each text of the labelled set, 30 B to 3.5 KB), one
// text field at review.MaxTextBytes (64 KiB), and a whole record at
// review.MaxRecordBytes (1 MiB, as 16 fields of 64 KiB). The texts are
// the labelled set's, benign and attacks, concatenated to size, so the
// rules' keywords occur as often as in real records and findings are
// made. Each iteration screens every sample of its case once (590
// records, 16 fields of 64 KiB, 4 records of 1 MiB); p50 and p99 are
// over all the calls, one proposal each. The peer is a plain scan:
// lower-case the text and strings.Contains it against a blocklist of 40
// phrases.
//
//	go test -run '^$' -bench . -benchtime 1x ./review/screen/

func benchSamples(b testing.TB) (records []string, field64k []string) {
	all := append(readLabelled(b, "attacks.jsonl"), readLabelled(b, "benign-hard.jsonl")...)
	all = append(all, readLabelled(b, "benign-sample.jsonl")...)
	for _, l := range all {
		records = append(records, l.Text)
	}
	// 64 KiB fields, each starting at a different record
	for start := 0; start < 16; start++ {
		var sb strings.Builder
		for i := start * 37; sb.Len() < review.MaxTextBytes; i++ {
			t := records[i%len(records)]
			if sb.Len()+len(t)+1 > review.MaxTextBytes {
				break
			}
			sb.WriteString(t)
			sb.WriteByte('\n')
		}
		field64k = append(field64k, sb.String())
	}
	return records, field64k
}

var blocklist = []string{"ignore all previous", "ignore previous instructions", "disregard", "system prompt", "<|im_start|>",
	"[inst]", "### instruction", "you are now", "developer mode", "jailbreak", "do anything now", "do not tell the user",
	"without asking", "new instructions", "override", "pretend you are", "act as", "from now on", "curl ", "| sh", "| bash",
	"webhook", "ngrok", "pastebin", "requestbin", "send the", "upload", "exfiltrate", "begin rsa private key",
	"begin openssh private key", "akia", "ghp_", "sk-", "xoxb-", "password=", "api_key", "\u200b", "\u202e", "<!--", "base64"}

func plainScan(text string) int {
	low := strings.ToLower(text)
	n := 0
	for _, p := range blocklist {
		if strings.Contains(low, p) {
			n++
		}
	}
	return n
}

// percentiles runs f on each of n samples b.N times and reports the
// p50 and p99 of one call.
func percentiles(b *testing.B, n int, f func(i int)) {
	durs := make([]time.Duration, 0, b.N*n)
	b.ResetTimer()
	for range b.N {
		for i := range n {
			t0 := time.Now()
			f(i)
			durs = append(durs, time.Since(t0))
		}
	}
	b.StopTimer()
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(durs[min(len(durs)-1, len(durs)*99/100)].Microseconds()), "p99-µs")
	b.ReportMetric(0, "ns/op") // one op is a pass over the samples; the percentiles are per call
}

func BenchmarkScreenProposal(b *testing.B) {
	records, fields := benchSamples(b)
	Screen("warm up") // compile the rules outside the timings
	var record1m [][]Field
	for r := 0; r < 4; r++ {
		var fs []Field
		for i := 0; i < review.MaxRecordBytes/review.MaxTextBytes; i++ {
			fs = append(fs, Field{Name: fmt.Sprintf("steps[%d]", i), Text: fields[(r+i)%len(fields)]})
		}
		record1m = append(record1m, fs)
	}
	b.Run("record/screen", func(b *testing.B) { percentiles(b, len(records), func(i int) { Screen(records[i]) }) })
	b.Run("record/plain-scan", func(b *testing.B) { percentiles(b, len(records), func(i int) { plainScan(records[i]) }) })
	b.Run("field-64KiB/screen", func(b *testing.B) { percentiles(b, len(fields), func(i int) { Screen(fields[i]) }) })
	b.Run("field-64KiB/plain-scan", func(b *testing.B) { percentiles(b, len(fields), func(i int) { plainScan(fields[i]) }) })
	b.Run("record-1MiB/screen", func(b *testing.B) {
		percentiles(b, len(record1m), func(i int) { ScreenFields(record1m[i]...) })
	})
	b.Run("record-1MiB/plain-scan", func(b *testing.B) {
		percentiles(b, len(record1m), func(i int) {
			for _, f := range record1m[i] {
				plainScan(f.Text)
			}
		})
	})
}

// BenchmarkCompileRules is the one-time cost of the first Screen in a
// process: the gitleaks file parsed and its rules and the text rules
// compiled.
func BenchmarkCompileRules(b *testing.B) {
	for range b.N {
		if _, err := loadSecretSet(gitleaksTOML); err != nil {
			b.Fatal(err)
		}
		newRuleSet(textRules())
	}
}

// BenchmarkSecretRules is the secret rules alone on the 64 KiB fields:
// each rule from its anchors (anchor.go), and, as the peer in the same
// process, each rule's whole pattern over its windows (how every rule ran
// before anchors).
//
//	go test -run '^$' -bench SecretRules -benchtime 1x -count 3 ./review/screen/
func BenchmarkSecretRules(b *testing.B) {
	_, fields := benchSamples(b)
	set := shared().secrets
	for _, c := range []struct {
		name    string
		anchors bool
	}{{"anchored", true}, {"whole-pattern", false}} {
		b.Run(c.name, func(b *testing.B) {
			percentiles(b, len(fields), func(i int) { set.findWith(fields[i], c.anchors) })
		})
	}
}
