package mcpserver_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/sample/testenv"
	"github.com/memreview/memreview/ui/mcpserver"
)

// Benchmarks (go test ./ui/mcpserver/ -run '^$' -bench . -benchtime 500x):
// memory_search over streamable HTTP on 127.0.0.1 with 1, 8 and 32
// concurrent clients, each next to the same number of goroutines calling
// the same Service in process, on a bank of 100,000 records; and
// memory_propose throughput the same two ways. Each reports p50/p99
// latency and requests per second.
//
// The 100k bank is $MEMREVIEW_MCP_BANK when set (make one with
// 'memreview sample gen --records 100000 DIR'; the benchmarks only read
// it), else one built once with the same generator under os.TempDir()
// (memreview-mcp-bench-100000) and reused across runs; delete it to rebuild.

const benchRecords = 100_000

func benchBankDir(b *testing.B) string {
	b.Helper()
	if dir := os.Getenv("MEMREVIEW_MCP_BANK"); dir != "" {
		return dir
	}
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("memreview-mcp-bench-%d", benchRecords))
	start := time.Now()
	built, err := testenv.BuildOnce(dir, func(tmp string) error {
		if err := sample.Synth(tmp, sample.SynthOptions{Records: benchRecords, Trajectories: 200, Seed: sample.Seed}); err != nil {
			return err
		}
		s, err := store.Open(tmp, store.Options{})
		if err != nil {
			return err
		}
		ix, err := index.Open(filepath.Join(tmp, store.IndexDir), s)
		if err != nil {
			s.Close()
			return err
		}
		return errors.Join(ix.Close(), s.Close())
	})
	if err != nil {
		b.Fatal(err)
	}
	if built {
		b.Logf("built the %d-record bank in %s", benchRecords, time.Since(start).Round(time.Second))
	}
	return dir
}

// openBench opens the 100k bank and returns its Service and task queries
// (the first words of a spread of its records' lemmas).
func openBench(b *testing.B) (mcpserver.Service, []string) {
	dir := benchBankDir(b)
	svc, err := app.Open(context.Background(), dir, app.Options{Operator: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { svc.Close() })
	var queries []string
	for i := 1; len(queries) < 64; i += benchRecords / 64 {
		r, err := svc.Record(fmt.Sprintf("mem_%06d", i))
		if err != nil {
			b.Fatalf("record %d: %v", i, err)
		}
		w := strings.Fields(r.Lemma)
		queries = append(queries, strings.Join(w[:min(6, len(w))], " "))
	}
	return mcpserver.FromService(svc), queries
}

// latencies collects call durations from several goroutines.
type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(d time.Duration) { l.mu.Lock(); l.d = append(l.d, d); l.mu.Unlock() }

func (l *latencies) report(b *testing.B, elapsed time.Duration) {
	slices.Sort(l.d)
	q := func(p float64) float64 { return float64(l.d[int(p*float64(len(l.d)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(float64(len(l.d))/elapsed.Seconds(), "req/s")
	b.ReportMetric(0, "ns/op")
}

// drive runs b.N calls of call spread over clients goroutines and reports
// latency quantiles and throughput.
func drive(b *testing.B, clients int, call func(worker, i int) error) {
	var lat latencies
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= b.N {
					return
				}
				t0 := time.Now()
				if err := call(w, i); err != nil {
					b.Error(err)
					return
				}
				lat.add(time.Since(t0))
			}
		}()
	}
	wg.Wait()
	lat.report(b, time.Since(start))
}

// sessions opens n HTTP client sessions on url.
func sessions(b *testing.B, url, token string, n int) []*mcp.ClientSession {
	out := make([]*mcp.ClientSession, n)
	for i := range out {
		cs, err := httpClient(b, context.Background(), url, token, fmt.Sprintf("bench-%d", i))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cs.Close() })
		out[i] = cs
	}
	return out
}

func toolCall(cs *mcp.ClientSession, name string, args map[string]any) error {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err == nil && res.IsError {
		err = fmt.Errorf("%s: %s", name, text(res))
	}
	return err
}

func BenchmarkSearch100k(b *testing.B) {
	bank, queries := openBench(b)
	ctx := context.Background()
	url := serveHTTP(b, mcpserver.New(bank, mcpserver.Options{}), "bench-token")
	for _, clients := range []int{1, 8, 32} {
		b.Run(fmt.Sprintf("clients=%d/in-process", clients), func(b *testing.B) {
			drive(b, clients, func(_, i int) error {
				_, err := bank.Retrieve(ctx, mcpserver.RetrieveRequest{Query: queries[i%len(queries)], K: mcpserver.DefaultK, Client: "bench"})
				return err
			})
		})
		b.Run(fmt.Sprintf("clients=%d/http", clients), func(b *testing.B) {
			ss := sessions(b, url, "bench-token", clients)
			drive(b, clients, func(w, i int) error {
				return toolCall(ss[w], "memory_search", map[string]any{"query": queries[i%len(queries)]})
			})
		})
	}
}

func BenchmarkPropose(b *testing.B) {
	w := newWorld(b, mcpserver.Options{})
	ctx := context.Background()
	url := serveHTTP(b, w.srv, "")
	for _, clients := range []int{1, 8} {
		b.Run(fmt.Sprintf("clients=%d/in-process", clients), func(b *testing.B) {
			drive(b, clients, func(_, i int) error {
				_, err := w.bank.Propose(ctx, review.Proposal{Op: review.OpCreate, Rationale: "bench", Trajectory: "traj_01", CuratorRun: "mcp:bench",
					Record: &review.Record{Lemma: fmt.Sprintf("Bench lesson %d.", i), Category: review.Fact, Confidence: 0.5}})
				return err
			})
		})
		b.Run(fmt.Sprintf("clients=%d/http", clients), func(b *testing.B) {
			ss := sessions(b, url, "", clients)
			drive(b, clients, func(w, i int) error {
				return toolCall(ss[w], "memory_propose", createArgs(fmt.Sprintf("Bench lesson over HTTP %d.", i)))
			})
		})
	}
}
