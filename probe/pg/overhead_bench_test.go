package pg_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/probe/docs"
	"github.com/memreview/memreview/probe/docs/docstest"
	"github.com/memreview/memreview/probe/pg"
)

// BenchmarkProbeKinds runs one trivial probe of each kind through one
// probe.Runner, side by side: SELECT 1 on a SQLite file and on
// PostgreSQL (unix socket, pool kept), stat of a text file, one page of a
// one-page PDF, and one call of an MCP stdio server's read-only tool
// (session kept). Each op is Runner.Run whole: checks, the probe, the
// fingerprint taken after it. p50 and p99 are over the ops of one run.
//
//	go test ./probe/pg/ -run '^$' -bench ProbeKinds -benchtime 2s
func BenchmarkProbeKinds(b *testing.B) {
	roURL, _, _ := pg.Fixture(b)
	dir := b.TempDir()
	dbPath := filepath.Join(dir, "t.db")
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO items VALUES (1, 'apple')"); err != nil {
		b.Fatal(err)
	}
	db.Close()
	files := filepath.Join(dir, "files")
	os.Mkdir(files, 0o755)
	os.WriteFile(filepath.Join(files, "a.txt"), []byte("hello\n"), 0o644)
	os.WriteFile(filepath.Join(files, "one.pdf"), docstest.PDF([]string{"one page"}), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := docs.PreparePDF(ctx); err != nil {
		b.Fatal(err)
	}
	mcpEnv := mcpBenchEnv(b)
	r := probe.NewRunner()
	defer r.Close()
	kinds := []struct {
		name  string
		env   probe.Env
		input string
	}{
		{"sql", probe.Env{Name: "s", Kind: probe.KindSQL, Path: dbPath}, "SELECT 1"},
		{"postgres", probe.Env{Name: "p", Kind: probe.KindPostgres, URL: roURL}, "SELECT 1"},
		{"files-stat", probe.Env{Name: "f", Kind: probe.KindFiles, Path: files}, "stat a.txt"},
		{"files-pdf-page", probe.Env{Name: "f", Kind: probe.KindFiles, Path: files}, "read one.pdf --page 1"},
		{"mcp-stdio", mcpEnv, `lookup {"id": 1}`},
	}
	for _, k := range kinds {
		b.Run("kind="+k.name, func(b *testing.B) {
			if res := r.Run(context.Background(), k.env, k.input, probe.Limits{}); !res.OK() {
				b.Fatalf("%s: %s", k.input, res.Error)
			}
			var lat []time.Duration
			for b.Loop() {
				start := time.Now()
				res := r.Run(context.Background(), k.env, k.input, probe.Limits{})
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
