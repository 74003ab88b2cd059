package probe_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/probe"
	_ "github.com/memreview/memreview/probe/mcpenv" // registers the mcp kind
	"github.com/memreview/memreview/probe/mcpenv/mcptest"
	"github.com/memreview/memreview/sample/testenv"
)

func fakeEnv(t *testing.T, mode string, allow ...string) probe.Env {
	cmd, env := mcptest.Command(mode, filepath.Join(t.TempDir(), "calls.log"))
	var pass []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
		pass = append(pass, k)
	}
	return probe.Env{Name: "fake", Kind: probe.KindMCP, Command: cmd, PassEnv: pass, Allow: allow}
}

// TestRunnerMCP: one session for many probes, the allow-list note in the
// result and its text form, a table from structured content, the
// fingerprint, Describe and Health.
func TestRunnerMCP(t *testing.T) {
	r := probe.NewRunner()
	defer r.Close()
	env := fakeEnv(t, mcptest.ModeTools, "count_words")
	ctx := context.Background()
	res := r.Run(ctx, env, `lookup {"id": 7}`, probe.Limits{})
	if !res.OK() || res.Text != "item 7: apple\x1b[31m" || res.Kind != probe.KindMCP || len(res.Fingerprint) != probe.FingerprintLen {
		t.Fatalf("lookup: %+v", res)
	}
	if s := probe.FormatText(res, 0); strings.Contains(s, "\x1b") {
		t.Errorf("an escape from the server reached the text form: %q", s)
	}
	first := probe.ConnOf(r, "fake")
	res2 := r.Run(ctx, env, `count_words {"text": "a b"}`, probe.Limits{})
	if !res2.OK() || res2.Text != "2" || res2.Note != "read-only by your allow-list, not by the server" {
		t.Errorf("count_words: %+v", res2)
	}
	if !strings.Contains(probe.FormatText(res2, 0), "(note: read-only by your allow-list, not by the server)") {
		t.Errorf("the note is not shown: %q", probe.FormatText(res2, 0))
	}
	if probe.ConnOf(r, "fake") != first {
		t.Errorf("a second probe made a new session")
	}
	res3 := r.Run(ctx, env, "rows", probe.Limits{})
	if !reflect.DeepEqual(res3.Columns, []string{"id", "name", "tags", "ok"}) || len(res3.Rows) != 2 {
		t.Errorf("rows: %+v", res3)
	}
	if res3.Fingerprint != res.Fingerprint {
		t.Errorf("the fingerprint moved between probes of an unchanged server")
	}
	if res4 := r.Run(ctx, env, `write_note {"text": "x"}`, probe.Limits{}); !strings.HasPrefix(res4.Error, "refused: write_note") {
		t.Errorf("write_note: %+v", res4)
	}
	d := r.Describe(ctx, env)
	var names []string
	for _, tl := range d.Tools {
		names = append(names, tl.Name)
	}
	if d.Kind != probe.KindMCP || !strings.HasPrefix(d.Target, "stdio: ") || d.Usage != probe.Usage(probe.KindMCP) ||
		!reflect.DeepEqual(names, []string{"count_words", "crash", "fails", "flood", "garbage", "huge", "lookup", "peek", "rows", "sleep"}) {
		t.Errorf("Describe: %+v %v", d, names)
	}
	if h := r.Health(ctx, env, 0); !h.Reachable || h.Detail != "13 tools, 10 callable" {
		t.Errorf("Health: %+v", h)
	}
	other := fakeEnv(t, mcptest.ModeTools2)
	if fp, err := r.Fingerprint(ctx, other); err != nil || fp == res.Fingerprint {
		t.Errorf("a server with one more tool: fingerprint %q (%v), same as before", fp, err)
	}
	if probe.ConnOf(r, "fake") == first {
		t.Errorf("a re-declared environment kept its old session")
	}
	r.Close()
	if res := r.Run(ctx, env, "rows", probe.Limits{}); !strings.Contains(res.Error, "closed") {
		t.Errorf("after Close: %+v", res)
	}
}

// TestRunnerMCPTimeout: a tool that hangs is stopped at the probe's time
// limit with the usual sentence.
func TestRunnerMCPTimeout(t *testing.T) {
	r := probe.NewRunner()
	defer r.Close()
	env := fakeEnv(t, mcptest.ModeTools)
	res := r.Run(context.Background(), env, "sleep", probe.Limits{Timeout: 300 * time.Millisecond})
	if !strings.HasPrefix(res.Error, "timed out after 300ms") {
		t.Errorf("sleep: %+v", res)
	}
	if h := r.Health(context.Background(), probe.Env{Name: "x", Kind: probe.KindMCP, Command: []string{"/nonexistent/server"}}, 0); h.Reachable || !strings.Contains(h.Detail, "no such file") {
		t.Errorf("Health of a missing server: %+v", h)
	}
}

// filesystemServer finds the official @modelcontextprotocol/server-filesystem
// as .ci/run installs it (npm, into the user's cache folder), or skips
// saying how to install it; under MEMREVIEW_CI=1 it fails.
func filesystemServer(t *testing.T) []string {
	t.Helper()
	bin := os.Getenv("MEMREVIEW_MCP_FILESYSTEM")
	if bin == "" {
		cache, _ := os.UserCacheDir()
		bin = filepath.Join(cache, "memreview", "npm", "node_modules", ".bin", "mcp-server-filesystem")
	}
	if _, err := os.Stat(bin); err != nil {
		testenv.Missing(t, "the official MCP filesystem server is not installed ("+err.Error()+"); install it as .ci/run does: "+
			"npm install --prefix ~/.cache/memreview/npm @modelcontextprotocol/server-filesystem@"+filesystemServerVersion+
			" (or set MEMREVIEW_MCP_FILESYSTEM to its mcp-server-filesystem)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Missing(t, "node is not installed (apt-get install -y nodejs npm), so the MCP filesystem server cannot run")
	}
	return []string{bin}
}

// filesystemServerVersion is the release .ci/run installs.
const filesystemServerVersion = "2026.8.31"

// TestOfficialFilesystemServer probes through the MCP filesystem server
// from npm: its read tools work as probes; write_file, edit_file,
// create_directory and move_file are refused before any call, and the
// folder is unchanged.
func TestOfficialFilesystemServer(t *testing.T) {
	t.Parallel()
	cmd := filesystemServer(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("reviews join items on ref_id\nsecond line\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	before := probe.DirNames(t, dir)
	r := probe.NewRunner()
	defer r.Close()
	env := probe.Env{Name: "fs", Kind: probe.KindMCP, Command: append(cmd, dir)}
	ctx := context.Background()
	lim := probe.Limits{Timeout: 20 * time.Second}
	res := r.Run(ctx, env, `read_text_file {"path": "`+filepath.Join(dir, "notes.txt")+`"}`, lim)
	if !res.OK() || !strings.Contains(res.Text, "reviews join items on ref_id") || res.Note != "" {
		t.Errorf("read_text_file: %+v", res)
	}
	res = r.Run(ctx, env, `list_directory {"path": "`+dir+`"}`, lim)
	if !res.OK() || !strings.Contains(res.Text, "notes.txt") || !strings.Contains(res.Text, "sub") {
		t.Errorf("list_directory: %+v", res)
	}
	for _, in := range []string{
		`write_file {"path": "` + filepath.Join(dir, "new.txt") + `", "content": "x"}`,
		`edit_file {"path": "` + filepath.Join(dir, "notes.txt") + `", "edits": [{"oldText": "reviews", "newText": "x"}]}`,
		`create_directory {"path": "` + filepath.Join(dir, "made") + `"}`,
		`move_file {"source": "` + filepath.Join(dir, "notes.txt") + `", "destination": "` + filepath.Join(dir, "moved.txt") + `"}`,
	} {
		name, _, _ := strings.Cut(in, " ")
		if res := r.Run(ctx, env, in, lim); !strings.HasPrefix(res.Error, "refused: "+name) || !strings.Contains(res.Error, "it was not called") {
			t.Errorf("%s: %+v", name, res)
		}
	}
	if after := probe.DirNames(t, dir); !reflect.DeepEqual(before, after) {
		t.Errorf("the folder changed: %v -> %v", before, after)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); !strings.HasPrefix(string(b), "reviews join") {
		t.Errorf("notes.txt changed: %q", b)
	}
	tools, err := r.Tools(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	callable := map[string]bool{}
	for _, tl := range tools {
		callable[tl.Name] = tl.Callable
	}
	for _, name := range []string{"read_text_file", "list_directory", "search_files", "get_file_info"} {
		if !callable[name] {
			t.Errorf("%s is not callable: %+v", name, tools)
		}
	}
}
