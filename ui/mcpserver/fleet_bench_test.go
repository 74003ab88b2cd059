package mcpserver_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/sample/testenv"
	"github.com/memreview/memreview/ui/mcpserver"
)

// BenchmarkFleetSearch is issue 28 item 3: memory_search at 100,000
// records from 1, 8 and 32 agents at once, each holding its go-sdk client
// session open over streamable HTTP (bearer token, audit on), beside the
// same Retrieve calls made in process by as many goroutines, the two
// sub-benchmarks of a client count one after the other in one process:
//
//	go test ./ui/mcpserver/ -run '^$' -bench FleetSearch -benchtime 2000x
//
// The bank is $MEMREVIEW_MCP_BANK when set, else one made once by
// app.GenerateBank under os.TempDir() (memreview-mcp-fleet-100000) and
// reused; delete it to make it again. Each reports p50/p99 latency and
// requests per second; "ratio" is HTTP ÷ in-process throughput.
func BenchmarkFleetSearch(b *testing.B) {
	dir := fleetBank(b)
	svc, err := app.Open(context.Background(), dir, app.Options{Operator: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { svc.Close() })
	bank := mcpserver.FromService(svc)
	queries := fleetQueries(b, svc)
	url := serveHTTP(b, mcpserver.New(bank, mcpserver.Options{}), "bench-token")
	ctx := context.Background()
	for _, clients := range []int{1, 8, 32} {
		var inproc float64
		b.Run(fmt.Sprintf("clients=%d/in-process", clients), func(b *testing.B) {
			inproc = driveRate(b, clients, func(_, i int) error {
				_, err := bank.Retrieve(ctx, mcpserver.RetrieveRequest{Query: queries[i%len(queries)], K: mcpserver.DefaultK, Client: "bench"})
				return err
			})
		})
		b.Run(fmt.Sprintf("clients=%d/http", clients), func(b *testing.B) {
			ss := agentSessions(b, url, "bench-token", clients)
			rate := driveRate(b, clients, func(w, i int) error {
				return toolCall(ss[w], "memory_search", map[string]any{"query": queries[i%len(queries)]})
			})
			if inproc > 0 {
				b.ReportMetric(rate/inproc, "ratio")
			}
		})
	}
}

// driveRate is drive that also reports the process's CPU time per call
// (both sides of HTTP are in this process; the figure moves less with
// the machine's load than the wall times) and returns the throughput.
func driveRate(b *testing.B, clients int, call func(worker, i int) error) float64 {
	cpu0 := processCPU()
	start := time.Now()
	drive(b, clients, call)
	rate := float64(b.N) / time.Since(start).Seconds()
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	return rate
}

const fleetRecords = 100_000

func fleetBank(b *testing.B) string {
	b.Helper()
	if dir := os.Getenv("MEMREVIEW_MCP_BANK"); dir != "" {
		return dir
	}
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("memreview-mcp-fleet-%d", fleetRecords))
	start := time.Now()
	built, err := testenv.BuildOnce(dir, func(tmp string) error {
		_, err := app.GenerateBank(tmp, app.SynthOptions{Records: fleetRecords, Trajectories: 200, Seed: app.SampleSeed})
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	if built {
		b.Logf("built the %d-record bank in %s", fleetRecords, time.Since(start).Round(time.Second))
	}
	return dir
}

// fleetQueries are task texts: the first six words of 64 records' lemmas
// spread over the bank.
func fleetQueries(b *testing.B, svc *app.Service) []string {
	var qs []string
	for i := 1; len(qs) < 64; i += fleetRecords / 64 {
		r, err := svc.Record(fmt.Sprintf("mem_%06d", i))
		if err != nil {
			b.Fatalf("record %d: %v", i, err)
		}
		qs = append(qs, firstWords(r.Lemma, 6))
	}
	return qs
}

func firstWords(s string, n int) string {
	w := strings.Fields(s)
	return strings.Join(w[:min(n, len(w))], " ")
}

// agentSessions opens n client sessions on url, each with its own HTTP
// transport (its own connections), as n agent processes would.
func agentSessions(b *testing.B, url, token string, n int) []*mcp.ClientSession {
	out := make([]*mcp.ClientSession, n)
	for i := range out {
		hc := &http.Client{Transport: bearer{token, http.DefaultTransport.(*http.Transport).Clone()}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprintf("agent-%d", i), Version: "1"}, nil).
			Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cs.Close() })
		out[i] = cs
	}
	return out
}
