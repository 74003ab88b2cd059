package screen

import (
	"bufio"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/memreview/memreview/sample/testenv"
)

// The labelled set: testdata/screen/attacks.jsonl (attack strings with
// the kinds they carry) and benign memory records — the sample world's
// (benign-sample.jsonl), hard negatives written to look like attacks
// (benign-hard.jsonl), and, read at test time, the real data's memory
// blocks, memory-graph observations and policy sentences. Each line has
// a batch saying its history: "tune" lines were written first and the
// rules tuned against them; "heldout1" lines were written after that
// tuning, measured as they came (the figures are in BENCHMARKS.md), and
// then tuned against too; "heldout2" lines were written after the second
// round and have not been tuned against. TestLabelledSet fails when the
// whole set is below the targets and logs each batch's figures.

const labelledDir = "../../testdata/screen"

type labelled struct {
	Text  string `json:"text"`
	Kinds []Kind `json:"kinds"`
	Note  string `json:"note"`
	Batch string `json:"batch"`
}

func readLabelled(t testing.TB, name string) []labelled {
	t.Helper()
	f, err := os.Open(filepath.Join(labelledDir, name))
	if err != nil {
		t.Fatalf("the labelled set: %v", err)
	}
	defer f.Close()
	var out []labelled
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var l labelled
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s:%d: %v", name, n, err)
		}
		if !validBatch(l.Batch) {
			t.Fatalf("%s:%d: batch %q is not one of %v", name, n, l.Batch, batches)
		}
		for _, k := range l.Kinds {
			if !validKind(k) {
				t.Fatalf("%s:%d: unknown kind %q", name, n, k)
			}
		}
		l.Text = expand(l.Text, int64(n)+int64(len(name))*1000)
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

var batches = []string{"tune", "heldout1", "heldout2"}

func validBatch(b string) bool {
	for _, x := range batches {
		if x == b {
			return true
		}
	}
	return false
}

func validKind(k Kind) bool {
	for _, x := range Kinds {
		if x == k {
			return true
		}
	}
	return false
}

// expand fills the set's templates, so that no real-looking credential
// is written into the repository and each run draws the same values:
// {{gen CLASS N}} is N random characters of a class; {{b64}}…{{/b64}}
// and {{hex}}…{{/hex}} encode their content; {{tags}}…{{/tags}} writes it
// in Unicode tag characters; {{zw}}…{{/zw}} as zero-width bits;
// {{vs}}…{{/vs}} as variation selectors.
func expand(s string, seed int64) string {
	rng := rand.New(rand.NewPCG(uint64(seed), 7))
	s = reGen.ReplaceAllStringFunc(s, func(m string) string {
		p := reGen.FindStringSubmatch(m)
		n, _ := strconv.Atoi(p[2])
		alpha := genClasses[p[1]]
		if alpha == "" {
			panic("unknown class " + p[1])
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = alpha[rng.IntN(len(alpha))]
		}
		return string(b)
	})
	return reWrap.ReplaceAllStringFunc(s, func(m string) string {
		p := reWrap.FindStringSubmatch(m)
		body := p[2]
		var b strings.Builder
		switch p[1] {
		case "b64":
			return base64.StdEncoding.EncodeToString([]byte(body))
		case "hex":
			return hex.EncodeToString([]byte(body))
		case "tags":
			for _, r := range body {
				b.WriteRune(0xe0000 + r)
			}
		case "zw":
			for i := 0; i < len(body); i++ {
				for bit := 7; bit >= 0; bit-- {
					if body[i]>>bit&1 == 1 {
						b.WriteRune(0x200c)
					} else {
						b.WriteRune(0x200b)
					}
				}
			}
		case "vs":
			for i := 0; i < len(body); i++ {
				if c := rune(body[i]); c < 16 {
					b.WriteRune(0xfe00 + c)
				} else {
					b.WriteRune(0xe0100 + c - 16)
				}
			}
		}
		return b.String()
	})
}

var (
	reGen      = regexp.MustCompile(`\{\{gen (\w+) (\d+)\}\}`)
	reWrap     = regexp.MustCompile(`(?s)\{\{(b64|hex|tags|zw|vs)\}\}(.*?)\{\{/(?:b64|hex|tags|zw|vs)\}\}`)
	genClasses = map[string]string{
		"hex":        "0123456789abcdef",
		"digit":      "0123456789",
		"alpha":      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
		"alnum":      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
		"word":       "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
		"wordd":      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-",
		"b64":        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
		"b64url":     "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
		"a2":         "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
		"upperalnum": "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
		"bech":       "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
	}
)

// realBenign reads the real data's memory-like texts: each Letta core
// memory block, each observation of the MCP memory graph, each
// non-empty line of the tau-bench policies. It skips (fails under
// MEMREVIEW_CI=1) when the real data is absent.
func realBenign(t testing.TB) []labelled {
	t.Helper()
	root := filepath.Join("..", "..", "..", "shared", "realdata")
	var out []labelled
	read := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			testenv.Missing(t, fmt.Sprintf("real data %s not available (%v); to measure the screen on it put the shared real data at ../shared/realdata beside the repository", rel, err))
		}
		return b
	}
	var af struct {
		Blocks []struct{ Label, Value string } `json:"blocks"`
	}
	if err := json.Unmarshal(read("memory/letta/co-3.af"), &af); err != nil {
		t.Fatalf("letta agent file: %v", err)
	}
	for _, b := range af.Blocks {
		out = append(out, labelled{Text: b.Value, Note: "realdata Letta block " + b.Label, Batch: "tune"})
	}
	for i, line := range strings.Split(string(read("memory/mcp-memory/memory-graph.jsonl")), "\n") {
		var e struct {
			Name         string   `json:"name"`
			Observations []string `json:"observations"`
		}
		if line == "" || json.Unmarshal([]byte(line), &e) != nil {
			continue
		}
		for _, o := range e.Observations {
			out = append(out, labelled{Text: o, Note: fmt.Sprintf("realdata MCP memory graph line %d (%s)", i+1, e.Name), Batch: "tune"})
		}
	}
	for _, name := range []string{"airline_wiki.md", "retail_wiki.md"} {
		for i, line := range strings.Split(string(read("files/tau-bench-policies/"+name)), "\n") {
			if strings.TrimSpace(line) != "" {
				out = append(out, labelled{Text: line, Note: fmt.Sprintf("realdata tau-bench %s:%d", name, i+1), Batch: "tune"})
			}
		}
	}
	return out
}

// scores is recall per kind over attacks and false positives over benign
// records.
type scores struct {
	hit, total       map[Kind]int
	falsePos, benign int
	missed           []string
	fps              []string
}

func measure(attacks, benign []labelled, screened map[string][]Finding) scores {
	sc := scores{hit: map[Kind]int{}, total: map[Kind]int{}}
	screen := func(text string) []Finding {
		fs, ok := screened[text]
		if !ok {
			fs = Screen(text)
			screened[text] = fs
		}
		return fs
	}
	for _, a := range attacks {
		got := CountKinds(screen(a.Text))
		for _, k := range a.Kinds {
			sc.total[k]++
			if got[k] > 0 {
				sc.hit[k]++
			} else {
				sc.missed = append(sc.missed, fmt.Sprintf("%s: %s (%q)", k, a.Note, clip(a.Text, 90)))
			}
		}
	}
	for _, b := range benign {
		sc.benign++
		if fs := screen(b.Text); len(fs) > 0 {
			sc.falsePos++
			f := fs[0]
			sc.fps = append(sc.fps, fmt.Sprintf("%s/%s: %s (%q)", f.Kind, f.Rule, b.Note, clip(b.Text[f.Start:f.End], 80)))
		}
	}
	return sc
}

func (sc scores) recall(k Kind) float64 {
	if sc.total[k] == 0 {
		return 1
	}
	return float64(sc.hit[k]) / float64(sc.total[k])
}

func (sc scores) fpRate() float64 {
	if sc.benign == 0 {
		return 0
	}
	return float64(sc.falsePos) / float64(sc.benign)
}

// targets are the issue's: recall per kind, and at most 2% of benign
// records flagged.
var targets = map[Kind]float64{Secret: 0.9, HiddenText: 0.9, Instruction: 0.8, Exfiltration: 0.8}

const maxFP = 0.02

func byBatch(ls []labelled, batch string) []labelled {
	var out []labelled
	for _, l := range ls {
		if batch == "" || l.Batch == batch {
			out = append(out, l)
		}
	}
	return out
}

func TestLabelledSet(t *testing.T) {
	attacks := readLabelled(t, "attacks.jsonl")
	benign := append(readLabelled(t, "benign-sample.jsonl"), readLabelled(t, "benign-hard.jsonl")...)
	benign = append(benign, realBenign(t)...)
	if n := len(attacks); n < 200 {
		t.Fatalf("the set holds %d attack strings, want at least 200", n)
	}
	if n := len(benign); n < 200 {
		t.Fatalf("the set holds %d benign records, want at least 200", n)
	}
	screened := map[string][]Finding{}
	for _, batch := range append(append([]string(nil), batches...), "") {
		sc := measure(byBatch(attacks, batch), byBatch(benign, batch), screened)
		name := batch
		if name == "" {
			name = "all"
		}
		var line []string
		for _, k := range Kinds {
			line = append(line, fmt.Sprintf("%s %d/%d=%.3f", k, sc.hit[k], sc.total[k], sc.recall(k)))
		}
		t.Logf("%s: %s; false positives %d/%d=%.4f", name, strings.Join(line, ", "), sc.falsePos, sc.benign, sc.fpRate())
		if testing.Verbose() || os.Getenv("SCREEN_REPORT") != "" {
			sort.Strings(sc.missed)
			for _, m := range sc.missed {
				t.Logf("  missed %s", m)
			}
			for _, f := range sc.fps {
				t.Logf("  false positive %s", f)
			}
		}
		if batch != "" {
			continue // the whole set is held to the targets; batches are reported
		}
		for _, k := range Kinds {
			if sc.recall(k) < targets[k] {
				t.Errorf("recall on %s is %.3f (%d of %d), under the target %.2f", k, sc.recall(k), sc.hit[k], sc.total[k], targets[k])
			}
		}
		if sc.fpRate() > maxFP {
			t.Errorf("%d of %d benign records flagged (%.2f%%), over the %.0f%% allowed", sc.falsePos, sc.benign, 100*sc.fpRate(), 100*maxFP)
		}
	}
}

// TestKeywordGatesHideNoMatch runs every text rule over the labelled
// set with and without its keyword gate: a gate may only skip a rule
// that would not have matched.
func TestKeywordGatesHideNoMatch(t *testing.T) {
	all := append(readLabelled(t, "attacks.jsonl"), readLabelled(t, "benign-hard.jsonl")...)
	rs := shared().text
	for _, l := range all {
		f := fold(l.Text)
		on := map[*textRule]bool{}
		for _, ar := range rs.active(f.s, l.Text) {
			on[ar.rule] = true
		}
		for _, r := range rs.rules {
			subject := f.s
			if r.raw {
				subject = l.Text
			}
			if !on[r] && r.re.MatchString(subject) {
				t.Errorf("rule %s matches %s (%q) but its gate %v kept it from running", r.id, l.Note, clip(l.Text, 60), r.gate)
			}
		}
	}
}
