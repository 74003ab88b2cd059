package mcpserver_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/mcpserver"
)

// BenchmarkFleetSearchCache is BenchmarkFleetSearch (1, 8 and 32 agents,
// in process beside HTTP, on the same 100,000-record bank) where the
// retrieval cache cannot help, to set beside it:
//
//   - distinct: every call a task no call asked before (six-word windows
//     of the bank's lemmas, none repeated in the whole run), cache on: the
//     cost of a fleet whose agents all work on different tasks;
//   - distinct-unbounded: distinct with every call let run at once
//     (app.Options.RetrieveSlots -1), the peer of distinct's default of
//     one retrieval per core at a time, first come first served;
//   - repeated-nocache: BenchmarkFleetSearch's 64-task mix with the cache
//     off (app.Options.RetrieveCache -1): what the mix costs without it.
//
// BenchmarkFleetSearch itself (the 64-task mix, cache on) is the fleet
// that asks the same tasks again.
//
//	MEMREVIEW_MCP_BANK=DIR go test ./ui/mcpserver/ -run '^$' -bench FleetSearchCache -benchtime 300x
func BenchmarkFleetSearchCache(b *testing.B) {
	dir := fleetBank(b)
	ctx := context.Background()
	for _, mode := range []string{"distinct", "distinct-unbounded", "repeated-nocache"} {
		opt := app.Options{Operator: "bench"}
		distinct := strings.HasPrefix(mode, "distinct")
		switch mode {
		case "repeated-nocache":
			opt.RetrieveCache = -1
		case "distinct-unbounded":
			opt.RetrieveSlots = -1
		}
		svc, err := app.Open(ctx, dir, opt)
		if err != nil {
			b.Fatal(err)
		}
		bank := mcpserver.FromService(svc)
		queries := fleetQueries(b, svc)
		if distinct {
			queries = distinctTasks(b, svc, 8000)
		}
		var next atomic.Int64 // distinct: no task asked twice in the run
		task := func(i int) string {
			if distinct {
				return queries[int(next.Add(1)-1)%len(queries)]
			}
			return queries[i%len(queries)]
		}
		url := serveHTTP(b, mcpserver.New(bank, mcpserver.Options{}), "bench-token")
		for _, clients := range []int{1, 8, 32} {
			var inproc float64
			b.Run(fmt.Sprintf("%s/clients=%d/in-process", mode, clients), func(b *testing.B) {
				inproc = driveRate(b, clients, func(_, i int) error {
					_, err := bank.Retrieve(ctx, mcpserver.RetrieveRequest{Query: task(i), K: mcpserver.DefaultK, Client: "bench"})
					return err
				})
			})
			b.Run(fmt.Sprintf("%s/clients=%d/http", mode, clients), func(b *testing.B) {
				ss := agentSessions(b, url, "bench-token", clients)
				rate := driveRate(b, clients, func(w, i int) error {
					return toolCall(ss[w], "memory_search", map[string]any{"query": task(i)})
				})
				if inproc > 0 {
					b.ReportMetric(rate/inproc, "ratio")
				}
			})
		}
		hits, misses := svc.RetrieveCacheStats()
		b.Logf("%s: %d tasks, cache %d hits, %d misses", mode, len(queries), hits, misses)
		if distinct && hits > 0 {
			b.Errorf("distinct: %d calls answered from the cache", hits)
		}
		svc.Close()
	}
}

// distinctTasks are n different task texts: six-word windows of the
// lemmas of records spread over the bank.
func distinctTasks(b *testing.B, svc *app.Service, n int) []string {
	seen := map[string]bool{}
	var out []string
	for i := 1; i <= fleetRecords && len(out) < n; i += 7 {
		r, err := svc.Record(fmt.Sprintf("mem_%06d", i))
		if err != nil {
			continue
		}
		w := strings.Fields(r.Lemma)
		for at := 0; at+6 <= len(w) && at < 12; at += 3 {
			if t := strings.Join(w[at:at+6], " "); !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	if len(out) < n/2 {
		b.Fatalf("only %d distinct tasks", len(out))
	}
	return out
}
