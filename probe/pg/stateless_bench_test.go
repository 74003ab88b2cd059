package pg_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/probe/mcpenv/mcptest"
	"github.com/memreview/memreview/probe/pg"
)

// BenchmarkKeptVsStateless measures what the service's one probe.Runner
// saves over the stateless probe.Run for the kinds that hold state: a
// trivial PostgreSQL probe and a call of an MCP stdio server's tool, each
// through a Runner kept between probes (as the service keeps one for its
// lifetime) and through probe.Run, which opens a pool or starts the server
// for each probe and closes it after. Each op is one whole probe with its
// fingerprint; p50 and p99 are over the ops of one run.
//
//	go test ./probe/pg/ -run '^$' -bench KeptVsStateless -benchtime 40x -count 3
func BenchmarkKeptVsStateless(b *testing.B) {
	roURL, _, _ := pg.Fixture(b)
	mcpEnv := mcpBenchEnv(b)
	kept := probe.NewRunner()
	defer kept.Close()
	for _, k := range []struct {
		name  string
		env   probe.Env
		input string
	}{
		{"postgres", probe.Env{Name: "p", Kind: probe.KindPostgres, URL: roURL}, "SELECT 1"},
		{"mcp-stdio", mcpEnv, `lookup {"id": 1}`},
	} {
		for _, way := range []struct {
			name string
			run  func(context.Context, probe.Env, string, probe.Limits) probe.Result
		}{{"kept", kept.Run}, {"stateless", probe.Run}} {
			b.Run("kind="+k.name+"/runner="+way.name, func(b *testing.B) {
				if res := way.run(context.Background(), k.env, k.input, probe.Limits{}); !res.OK() {
					b.Fatalf("%s: %s", k.input, res.Error)
				}
				var lat []time.Duration
				for b.Loop() {
					start := time.Now()
					res := way.run(context.Background(), k.env, k.input, probe.Limits{})
					lat = append(lat, time.Since(start))
					if !res.OK() {
						b.Fatal(res.Error)
					}
				}
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
			})
		}
	}
}

// mcpBenchEnv declares this test binary as a stdio MCP server (mcptest),
// setting the variables the server reads until the benchmark ends.
func mcpBenchEnv(b *testing.B) probe.Env {
	cmd, env := mcptest.Command(mcptest.ModeTools, "")
	var pass []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		os.Setenv(k, v)
		pass = append(pass, k)
	}
	b.Cleanup(func() { os.Unsetenv("MCPTEST_SERVER") })
	return probe.Env{Name: "m", Kind: probe.KindMCP, Command: cmd, PassEnv: pass}
}
