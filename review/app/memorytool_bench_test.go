package app_test

// BenchmarkMemoryTool: the memory tool's commands on the benchmark bank
// (MEMREVIEW_BENCH_RECORDS records, default 10,000), beside memory_search's
// Retrieve on the same bank and service:
//
//	go test ./review/app -run '^$' -bench MemoryTool -benchtime 200x

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

func BenchmarkMemoryTool(b *testing.B) {
	src := benchBankDir(b)
	dir := filepath.Join(b.TempDir(), "bank")
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	svc, err := app.Open(ctx, dir, app.Options{Operator: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	if _, err := svc.IndexDocs(); err != nil { // the copy's index caught up before anything is timed
		b.Fatal(err)
	}
	recs, err := svc.Records(review.RecordFilter{Status: review.Active})
	if err != nil || len(recs) == 0 {
		b.Fatal(err)
	}
	r := recs[len(recs)/2]
	env := r.Scope.Env
	if env == "" {
		env = app.AnyEnvDir
	}
	file := "/memories/" + env + "/" + string(r.Category) + "/" + r.ID + ".md"
	dirPath := "/memories/" + env + "/" + string(r.Category)
	m := svc.NewMemorySession("bench")
	cmds := map[string]app.MemoryCommand{
		"view-root":      {Command: "view", Path: "/memories"},
		"view-directory": {Command: "view", Path: dirPath},
		"view-file":      {Command: "view", Path: file},
	}
	for _, name := range []string{"view-root", "view-directory", "view-file"} {
		b.Run(name, func(b *testing.B) {
			cmd := cmds[name]
			if _, err := m.Run(ctx, cmd); err != nil { // warm: the session reads the bank once
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := m.Run(ctx, cmd); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	text, path := "Totals are in cents.", "/memories/bench.md"
	if _, err := m.Run(ctx, app.MemoryCommand{Command: "create", Path: path, FileText: &text}); err != nil {
		b.Fatal(err)
	}
	words, edits := [2]string{"cents", "pennies"}, 0
	b.Run("str_replace", func(b *testing.B) { // queues a proposal: the bank changed, the session reads it again
		for range b.N {
			old, new := words[edits%2], words[(edits+1)%2]
			edits++
			if _, err := m.Run(ctx, app.MemoryCommand{Command: "str_replace", Path: path, OldStr: &old, NewStr: &new}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("peer:memory_search", func(b *testing.B) {
		req := app.RetrieveRequest{Task: r.Lemma, K: 5, Preview: true}
		if _, err := svc.Retrieve(req); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for range b.N {
			if _, err := svc.Retrieve(req); err != nil {
				b.Fatal(err)
			}
		}
	})
}
