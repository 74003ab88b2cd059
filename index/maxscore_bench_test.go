package index

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/index/plan"
	"github.com/memreview/memreview/review"
)

// BenchmarkRetrieveMaxScore is one Retrieve (k = 5, no scope: what an
// agent's memory_search runs) on an existing bank, with the max-score
// strategy and without it (bleve scoring every hit, top-scores reading
// the tie-break keys of only the hits that can reach the pool), side by
// side in one process on the same index. The tasks are those of
// ui/mcpserver's BenchmarkFleetSearch: the first six words of 64
// records' lemmas spread over the bank. Before timing, both answer every
// task alike (the same records, scores bit for bit). It reports the
// calling thread's CPU per retrieval (cpu-ms/op), steadier than wall time
// on a loaded machine, and wall p50/p99. Skipped unless
// MEMREVIEW_BENCH_BANK names the bank:
//
//	MEMREVIEW_BENCH_BANK=/tmp/b100k go test ./index/ -run '^$' -bench RetrieveMaxScore -benchtime 640x
func BenchmarkRetrieveMaxScore(b *testing.B) {
	st, ix := openBenchBank(b, OpenOptions{})
	n, err := ix.DocCount()
	if err != nil {
		b.Fatal(err)
	}
	var tasks []string
	for i := 1; len(tasks) < 64; i += int(n) / 64 {
		r, err := st.Record(fmt.Sprintf("mem_%06d", i))
		if err != nil {
			b.Fatalf("record %d: %v", i, err)
		}
		w := strings.Fields(r.Lemma)
		tasks = append(tasks, strings.Join(w[:min(6, len(w))], " "))
	}
	tunings := []struct {
		name string
		tune plan.Tuning
		st   *plan.State
	}{{"max-score", plan.Tuning{}, &plan.State{}}, {"bleve", plan.Tuning{Off: []string{plan.MaxScore}}, &plan.State{}}}
	for _, task := range tasks {
		want := stateRetrieve(b, ix, tunings[1].tune, tunings[1].st, task, review.Scope{}, 5, nil)
		if got := stateRetrieve(b, ix, tunings[0].tune, tunings[0].st, task, review.Scope{}, 5, nil); !slices.Equal(got, want) || len(want) == 0 {
			b.Fatalf("%q: max-score %v, bleve %v", task, got, want)
		}
	}
	for _, tn := range tunings {
		b.Run(tn.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var cpu time.Duration
			var ds []time.Duration
			i := 0
			for b.Loop() {
				c, t := threadCPU(), time.Now()
				stateRetrieve(b, ix, tn.tune, tn.st, tasks[i%len(tasks)], review.Scope{}, 5, nil)
				ds = append(ds, time.Since(t))
				cpu += threadCPU() - c
				i++
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(ds)), "cpu-ms/op")
			b.ReportMetric(float64(quantile(ds, 0.5))/1e6, "p50-ms")
			b.ReportMetric(float64(quantile(ds, 0.99))/1e6, "p99-ms")
		})
	}
}
