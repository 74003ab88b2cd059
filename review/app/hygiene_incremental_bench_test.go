package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/curator/hygiene"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/sample/testenv"
)

// BenchmarkHygieneIncremental: an incremental hygiene run (dry) over the
// records changed since the mark, on the bank of $MEMREVIEW_BENCH_BANK,
// which it changes: it marks the bank as of now, adds
// $MEMREVIEW_BENCH_CHANGED (default 1,000) records (copies of the text of
// records spread over the bank, so that each has a duplicate to find),
// then runs. ms/changed is the run's wall time per changed record,
// cpu-ms/changed the process's CPU time over the run (getrusage).
// MEMREVIEW_BENCH_BY names its neighbour search (NeighbourSearch.By: the
// default, shared-terms-bound). With MEMREVIEW_BENCH_PEER set it runs
// again on the same changes with the search it names (shared-terms,
// rare-terms, any-word; "1": any-word; three-pass: the same search, the
// finder's analysis as before, hygiene.AnalyseOnce off; regexps: the same
// search and analysis, hygiene.Scanners off; before: all three off) and counts the findings both runs make, and with
// MEMREVIEW_BENCH_FULL set too, a full run's, and how many of its pairs
// of a changed record and another each incremental run names in one
// finding. MEMREVIEW_BENCH_NEIGHBOURS sets the neighbours asked for per
// search (30), MEMREVIEW_BENCH_RARETERMS the rarest terms rare-terms
// searches (10). MEMREVIEW_BENCH_WARM set runs once, untimed, before: the
// first run timed otherwise pays the cold caches its peer finds warm.
//
//	MEMREVIEW_BENCH_BANK=DIR go test ./review/app/ -run '^$' -bench HygieneIncremental -benchtime 1x
func BenchmarkHygieneIncremental(b *testing.B) {
	dir := testenv.BenchBank(b, "it may change")
	changed := 1000
	if n, err := strconv.Atoi(os.Getenv("MEMREVIEW_BENCH_CHANGED")); err == nil && n > 0 {
		changed = n
	}
	k, _ := strconv.Atoi(os.Getenv("MEMREVIEW_BENCH_NEIGHBOURS"))
	terms, _ := strconv.Atoi(os.Getenv("MEMREVIEW_BENCH_RARETERMS"))
	ns := app.NeighbourSearch{By: app.NeighbourStrategy(os.Getenv("MEMREVIEW_BENCH_BY")), K: k, RareTerms: terms}
	peerBy := app.NeighbourStrategy(os.Getenv("MEMREVIEW_BENCH_PEER"))
	peerName := peerBy
	if peerBy == "1" {
		peerBy = app.NeighboursAnyWord
	}
	// three-pass: the peer is the same search with the finder's analysis
	// as before (hygiene.AnalyseOnce off: each record's text analysed
	// whole, again with its identifiers split, and its lemma alone);
	// before: that and the similar pairs on one goroutine
	// (hygiene.PairsOnCPUs off).
	// regexps: the same search and analysis, the claims and commuting
	// constructions found by the regexps (hygiene.Scanners off; before
	// turns it off too).
	threePass, before := peerBy == "three-pass" || peerBy == "before", peerBy == "before"
	regexps := peerBy == "regexps" || before
	if threePass || regexps {
		peerBy = ns.By
		if peerBy == "" {
			peerBy = app.NeighboursSharedTermsBound
		}
	}
	ctx := context.Background()
	svc, err := app.Open(ctx, dir, app.Options{Operator: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	recs, err := svc.Records(review.RecordFilter{Status: review.Active})
	if err != nil {
		b.Fatal(err)
	}
	total := len(recs)
	// Only the records the changes copy are kept: the bank's records held
	// through the runs would be marked by every collection of the run
	// timed (an operator's run holds no such list).
	src := make([]review.Record, changed)
	for i := range src {
		src[i] = recs[(i*7919)%len(recs)]
	}
	recs = nil
	// MEMREVIEW_BENCH_ORDER: new-first or peer-first for the first run
	// (unset: drawn at random); later runs alternate.
	peerFirst := rand.IntN(2) == 1
	switch o := os.Getenv("MEMREVIEW_BENCH_ORDER"); o {
	case "new-first", "peer-first":
		peerFirst = o == "peer-first"
	case "":
	default:
		b.Fatalf("MEMREVIEW_BENCH_ORDER=%q: new-first, peer-first or unset (random)", o)
	}
	for i := range b.N {
		seq, err := svc.LastSeq()
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, app.HygieneMarkFile), []byte(strconv.FormatInt(seq, 10)), 0o644); err != nil {
			b.Fatal(err)
		}
		run := time.Now().UnixNano()
		var lines []string
		for i := range changed {
			r := src[i]
			line, _ := json.Marshal(review.Record{ID: fmt.Sprintf("mem_b%d_%d", run, i), Lemma: r.Lemma, Category: r.Category,
				Scope: r.Scope, Trigger: r.Trigger, Confidence: 0.5, Status: review.Active})
			lines = append(lines, string(line))
		}
		for { // the screen refuses a few synthetic lemmas (secrets): leave those out
			_, err := svc.Import(ctx, app.KindRecords, []app.ImportInput{{Name: "changed.jsonl", R: strings.NewReader(strings.Join(lines, "\n") + "\n")}}, app.ImportOptions{})
			var ie *app.InputError
			if err == nil {
				break
			}
			if !errors.As(err, &ie) || ie.Line < 1 || ie.Line > len(lines) {
				b.Fatal(err)
			}
			lines = slices.Delete(lines, ie.Line-1, ie.Line)
		}
		changed = len(lines)
		if _, err := svc.IndexDocs(); err != nil { // the index caught up, as an operator's H finds it
			b.Fatal(err)
		}
		if os.Getenv("MEMREVIEW_BENCH_WARM") != "" { // the caches warmed, so that the first run timed does not pay them
			start := time.Now()
			if _, _, err := svc.Hygiene(ctx, app.HygieneOptions{Incremental: true, DryRun: true, Neighbours: ns}); err != nil {
				b.Fatal(err)
			}
			b.Logf("warm-up run: %v", time.Since(start))
		}
		var rep *app.HygieneReport
		first := func() {
			if path := os.Getenv("MEMREVIEW_BENCH_PROFILE"); path != "" { // this run's CPU alone, not the setup's
				f, err := os.Create(path)
				if err != nil {
					b.Fatal(err)
				}
				defer f.Close()
				if err := pprof.StartCPUProfile(f); err != nil {
					b.Fatal(err)
				}
				defer pprof.StopCPUProfile()
			}
			start, cpu := time.Now(), testenv.CPUTime()
			r, _, err := svc.Hygiene(ctx, app.HygieneOptions{Incremental: true, DryRun: true, Neighbours: ns})
			if err != nil {
				b.Fatal(err)
			}
			d, dc := time.Since(start), testenv.CPUTime()-cpu
			rep = r
			b.Logf("incremental run over %d changed of %d records: %v (CPU %v), %d findings", rep.Changed, total, d, dc, len(rep.Findings))
			b.ReportMetric(float64(dc.Milliseconds())/float64(changed), "cpu-ms/changed")
			if !rep.Incremental || rep.Changed != changed {
				b.Fatalf("incremental %v over %d changed; want %d", rep.Incremental, rep.Changed, changed)
			}
			b.ReportMetric(float64(d.Milliseconds())/float64(changed), "ms/changed")
		}
		if peerBy == "" {
			first()
		} else { // another search, on the same changes
			var peer *app.HygieneReport
			var pd, pc time.Duration
			second := func() {
				hygiene.AnalyseOnce, hygiene.PairsOnCPUs, hygiene.Scanners = !threePass, !before, !regexps
				start, cpu := time.Now(), testenv.CPUTime()
				r, _, err := svc.Hygiene(ctx, app.HygieneOptions{Incremental: true, DryRun: true,
					Neighbours: app.NeighbourSearch{By: peerBy, K: k, RareTerms: terms}})
				pd, pc = time.Since(start), testenv.CPUTime()-cpu
				hygiene.AnalyseOnce, hygiene.PairsOnCPUs, hygiene.Scanners = true, true, true
				if err != nil {
					b.Fatal(err)
				}
				peer = r
			}
			// The run timed first finds the caches the other warmed
			// less warm, or the collector's debt of the other: neither
			// side goes first every time.
			if peerFirst != (i%2 == 1) {
				b.Logf("order: the peer first")
				second()
				first()
			} else {
				b.Logf("order: the default first")
				first()
				second()
			}
			b.ReportMetric(float64(pc.Milliseconds())/float64(changed), "peer-cpu-ms/changed")
			mine := map[string]bool{}
			for _, f := range rep.Findings {
				mine[f.Fingerprint] = true
			}
			both := 0
			for _, f := range peer.Findings {
				if mine[f.Fingerprint] {
					both++
				}
			}
			b.Logf("peer (%s): %v (CPU %v), %d findings, %d of them also found by the default's run", peerName, pd, pc, len(peer.Findings), both)
			if os.Getenv("MEMREVIEW_BENCH_FULL") != "" { // what the full run finds about the changed records
				prefix := fmt.Sprintf("mem_b%d_", run)
				full, _, err := svc.Hygiene(ctx, app.HygieneOptions{DryRun: true})
				if err != nil {
					b.Fatal(err)
				}
				want := pairsAbout(full, prefix)
				for name, r := range map[string]*app.HygieneReport{"default": rep, "peer " + string(peerName): peer} {
					got := pairsAbout(r, prefix)
					for kind, ps := range want {
						hit := 0
						for p := range ps {
							if got[kind][p] {
								hit++
							}
						}
						b.Logf("%s: %s pairs of a changed record the full run names: %d, found %d (recall %.3f); %d pairs in all", name, kind, len(ps), hit, float64(hit)/float64(max(1, len(ps))), len(got[kind]))
					}
				}
			}
			b.ReportMetric(float64(pd.Milliseconds())/float64(changed), "peer-ms/changed")
			b.ReportMetric(float64(len(peer.Findings)), "peer-findings")
			b.ReportMetric(float64(both), "findings-in-both")
		}
		b.ReportMetric(float64(len(rep.Findings)), "findings")
		b.ReportMetric(float64(total), "records")
	}
	b.ReportMetric(0, "ns/op")
}

// pairsAbout are, by kind, the pairs (a changed record, by id prefix, and
// another) that one finding of r names together.
func pairsAbout(r *app.HygieneReport, prefix string) map[app.HygieneKind]map[[2]string]bool {
	out := map[app.HygieneKind]map[[2]string]bool{}
	for _, f := range r.Findings {
		if out[f.Kind] == nil {
			out[f.Kind] = map[[2]string]bool{}
		}
		for _, a := range f.Records {
			if !strings.HasPrefix(a, prefix) {
				continue
			}
			for _, o := range f.Records {
				if o != a {
					out[f.Kind][[2]string{min(a, o), max(a, o)}] = true
				}
			}
		}
	}
	return out
}
