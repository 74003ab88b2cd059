package index

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memreview/memreview/index/plan"
)

// BenchmarkPlanOff runs the comparison queries (BenchmarkSearchCompare's,
// facets uncached) on the 100,000-record corpus under the plan as it is
// and with one strategy turned off at a time (Tuning.Off), to show what
// each is worth on this mix: p50 and p99 of the calling thread's CPU per
// query (steadier than wall time on a loaded machine), and each query's
// median logged. Every variant answers the same requests; estimates may
// differ where a strategy estimates.
//
//	go test ./index/ -run '^$' -bench 'PlanOff' -benchtime 240x -count 1 -timeout 30m
func BenchmarkPlanOff(b *testing.B) {
	hits, facets, other := plan.Strategies()
	variants := append([]string{""}, other...)
	for _, s := range append(hits, facets...) {
		if s != "collect" && s != "block-sample" && s != "cache" { // collect and block-sample end their tables; the cache is off here
			variants = append(variants, s)
		}
	}
	for _, off := range variants {
		name := "plan"
		var tune plan.Tuning
		if off != "" {
			name, tune.Off = "off="+off, []string{off}
		}
		b.Run(name, func(b *testing.B) {
			ix := corpus(b, 100_000).index(b)
			reqs := make([]Request, len(cmpQueries))
			for i, q := range cmpQueries {
				reqs[i] = bleveRequest(q)
			}
			lat := runMix(b, func(k int) error {
				tunedSearch(b, ix, tune, reqs[k], noCache)
				return nil
			})
			b.ReportMetric(float64(quantile(lat.cpu, 0.5)), "p50-cpu-ns")
			b.ReportMetric(float64(quantile(lat.cpu, 0.99)), "p99-cpu-ns")
			var per []string
			for _, q := range cmpQueries {
				per = append(per, fmt.Sprintf("%s=%v", q.name, quantile(lat.cpuByQuery[q.name], 0.5)))
			}
			b.Logf("per-query p50 cpu: %s", strings.Join(per, " "))
		})
	}
}
