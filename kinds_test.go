package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/probe/docs/docstest"
)

// TestEveryKindIsLinkedIn: the program links in the driver of every
// probe kind that has one (the service imports probe/pg and probe/mcpenv),
// so no front end meets "not built into this program". The environments
// cannot be reached; only the reason they fail matters.
func TestEveryKindIsLinkedIn(t *testing.T) {
	r := probe.NewRunner()
	defer r.Close()
	ctx := context.Background()
	for _, c := range []struct {
		env   probe.Env
		input string
	}{
		{probe.Env{Name: "wh", Kind: probe.KindPostgres, URL: "postgres://probe@127.0.0.1:1/warehouse?connect_timeout=2"}, "SELECT 1"},
		{probe.Env{Name: "docs", Kind: probe.KindMCP, Command: []string{"/nonexistent/server"}}, "lookup"},
	} {
		res := r.Run(ctx, c.env, c.input, probe.Limits{Timeout: 5 * time.Second})
		if res.OK() || strings.Contains(res.Error, "not built into this program") {
			t.Errorf("%s: %+v", c.env.Kind, res)
		}
	}
}

// TestPDFEngineIsInstalled: the program installs the PDF engine (the
// service calls docs.UsePDFEngine), so a files probe reads a PDF. The
// engine may still be compiling (about 15 s, once per machine): then the
// probe says so, which is not the sentence of a program without it.
func TestPDFEngineIsInstalled(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "one.pdf"), docstest.PDF([]string{"one page"}), 0o644); err != nil {
		t.Fatal(err)
	}
	env := probe.Env{Name: "docs", Kind: probe.KindFiles, Path: dir}
	res := probe.Run(context.Background(), env, "read one.pdf", probe.Limits{Timeout: 30 * time.Second})
	if strings.Contains(res.Error, "without the PDF engine") || (res.OK() && !strings.Contains(res.Text, "one page")) {
		t.Errorf("read one.pdf: %+v", res)
	}
}
