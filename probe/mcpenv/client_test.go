package mcpenv

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/probe/mcpenv/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.MaybeServe()
	os.Exit(m.Run())
}

var lim = Limits{MaxRows: 100, MaxBytes: 1 << 20}

// stdio starts a client of the test server in mode; calls are logged to
// the returned file.
func stdio(t *testing.T, mode string, allow ...string) (*Client, string) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "calls.log")
	cmd, env := mcptest.Command(mode, log)
	c, err := New(Config{Name: "fake", Command: cmd, Env: env, Allow: allow, StartTimeout: 5 * time.Second, MaxMessage: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, log
}

func calls(t *testing.T, log string) []string {
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(b))
}

// TestToolsJudged: each tool's annotations decide whether a probe may call
// it, and the list says why.
func TestToolsJudged(t *testing.T) {
	t.Parallel()
	c, _ := stdio(t, mcptest.ModeTools, "count_words")
	tools, err := c.Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tl := range tools {
		got[tl.Name] = fmt.Sprintf("%v %s", tl.Callable, tl.Why)
	}
	want := map[string]string{
		"lookup":      "true annotated read-only by the server",
		"peek":        "true annotated read-only by the server",
		"count_words": "true named in the environment's allow-list (read-only by your allow-list, not by the server)",
		"write_note":  "false not callable: the server does not annotate it (readOnlyHint absent); add it to the allow-list to call it",
		"wipe":        "false not callable: annotated read-only but also destructive; add it to the allow-list to call it",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %q, want %q", name, got[name], w)
		}
	}
	if !strings.HasPrefix(got["bad_schema"], "false not callable: its input schema is invalid") {
		t.Errorf("bad_schema: %q", got["bad_schema"])
	}
}

// TestCalls: text, a table from structured content, an allow-listed tool
// marked as such, a tool's own error.
func TestCalls(t *testing.T) {
	t.Parallel()
	c, log := stdio(t, mcptest.ModeTools, "count_words")
	ctx := context.Background()
	out, err := c.Call(ctx, `lookup {"id": 3}`, lim)
	if err != nil || out.Text != "item 3: apple\x1b[31m" || out.Note != "" || out.Columns != nil {
		t.Errorf("lookup: %+v %v", out, err)
	}
	out, err = c.Call(ctx, "rows", lim)
	wantRows := [][]any{{int64(1), "apple", `["red"]`, nil}, {int64(2), "pear", nil, "true"}}
	if err != nil || !reflect.DeepEqual(out.Columns, []string{"id", "name", "tags", "ok"}) || !reflect.DeepEqual(out.Rows, wantRows) {
		t.Errorf("rows: %#v %v", out, err)
	}
	out, err = c.Call(ctx, "rows", Limits{MaxRows: 1, MaxBytes: 1 << 20})
	if err != nil || len(out.Rows) != 1 || !out.Truncated {
		t.Errorf("rows capped at 1: %#v %v", out, err)
	}
	out, err = c.Call(ctx, `count_words {"text": "one two three"}`, lim)
	if err != nil || out.Text != "3" || out.Note != AllowListNote {
		t.Errorf("count_words: %+v %v", out, err)
	}
	if _, err := c.Call(ctx, "fails", lim); err == nil || !strings.Contains(err.Error(), "reported an error: no such item") {
		t.Errorf("fails: %v", err)
	}
	if got := calls(t, log); !reflect.DeepEqual(got, []string{"lookup", "rows", "rows", "count_words", "fails"}) {
		t.Errorf("calls made: %v", got)
	}
}

// TestRefusedBeforeAnyCall: a tool that is not callable, arguments its
// schema rejects, bad JSON, an unknown tool: refused, and the server saw
// no call.
func TestRefusedBeforeAnyCall(t *testing.T) {
	t.Parallel()
	c, log := stdio(t, mcptest.ModeTools)
	ctx := context.Background()
	for _, c2 := range []struct{ in, want string }{
		{`write_note {"text": "x"}`, "refused: write_note is not callable: the server does not annotate it"},
		{"wipe", "refused: wipe is not callable: annotated read-only but also destructive"},
		{"count_words", "refused: count_words"},
		{"bad_schema", "input schema is invalid"},
		{`lookup {"id": "three"}`, "refused: the arguments do not match lookup's input schema"},
		{`lookup {"id": 0}`, "refused: the arguments do not match lookup's input schema"},
		{"lookup", "refused: the arguments do not match"},
		{`lookup {"id": 1`, "not valid JSON"},
		{`lookup [1]`, "must be a JSON object, not an array"},
		{`lookup {"id": 1} {"id": 2}`, "one JSON object"},
		{"nosuch", `no tool named "nosuch"; callable: crash, fails, flood, garbage, huge, lookup, peek, rows, sleep`},
		{"", "empty request"},
	} {
		if _, err := c.Call(ctx, c2.in, lim); err == nil || !strings.Contains(err.Error(), c2.want) {
			t.Errorf("%q: %v, want %q", c2.in, err, c2.want)
		}
	}
	if got := calls(t, log); len(got) != 0 {
		t.Errorf("the server was called: %v", got)
	}
}

// TestAnnotationIsTheServersWord: a tool annotated read-only that writes
// is called (nothing on the client can tell); the README says the
// annotations and the allow-list are the only defence.
func TestAnnotationIsTheServersWord(t *testing.T) {
	t.Parallel()
	c, log := stdio(t, mcptest.ModeTools)
	if _, err := c.Call(context.Background(), "peek", lim); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(log + ".peek"); err != nil {
		t.Errorf("peek did not write (the test server changed?): %v", err)
	}
}

// TestFaults: a hang, a crash mid-call, a 100 MB answer, malformed
// JSON-RPC and a stderr flood each give a clear error (or, for the flood,
// a normal answer), and the next probe works on a restarted server.
func TestFaults(t *testing.T) {
	t.Parallel()
	c, _ := stdio(t, mcptest.ModeTools)
	ctx := context.Background()
	pid := func() int { c.mu.Lock(); defer c.mu.Unlock(); return c.s.cmd.Process.Pid }

	tctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err := c.Call(tctx, "sleep", lim)
	cancel()
	if err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Errorf("sleep: %v", err)
	}
	if out, err := c.Call(ctx, `lookup {"id": 1}`, lim); err != nil || !strings.HasPrefix(out.Text, "item 1") {
		t.Errorf("after a hang: %v %v", out, err)
	}
	for _, f := range []struct{ tool, want string }{
		{"crash", "ended the session during crash: it exited with exit status 3; its stderr ends: panic: crashed on purpose; it is restarted on the next probe"},
		{"huge", "larger than 4 MiB"},
		{"garbage", "ended the session during garbage"},
	} {
		before := pid()
		t0 := time.Now()
		_, err := c.Call(ctx, f.tool, lim)
		t.Logf("%s took %s", f.tool, time.Since(t0))
		if err == nil || !strings.Contains(err.Error(), f.want) {
			t.Errorf("%s: %v, want %q", f.tool, err, f.want)
		}
		if out, err := c.Call(ctx, `lookup {"id": 2}`, lim); err != nil || !strings.HasPrefix(out.Text, "item 2") {
			t.Errorf("after %s: %v %v", f.tool, out, err)
		} else if pid() == before {
			t.Errorf("after %s: the same server process, not a restarted one", f.tool)
		}
	}
	if out, err := c.Call(ctx, "flood", lim); err != nil || out.Text != "flooded" {
		t.Errorf("flood: %v %v", out, err)
	}
	c.mu.Lock()
	stderr := c.s.stderr
	c.mu.Unlock()
	stderr.mu.Lock() // the server's stderr is still being copied into it
	tailLen := len(stderr.buf)
	stderr.mu.Unlock()
	if tailLen > 8<<10 {
		t.Errorf("the stderr tail grew to %d bytes", tailLen)
	}
}

// TestStartFaults: a server that never answers initialize, one that exits
// at once, a program that does not exist.
func TestStartFaults(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cmd, env := mcptest.Command(mcptest.ModeSilent, "")
	c, _ := New(Config{Name: "silent", Command: cmd, Env: env, StartTimeout: 300 * time.Millisecond})
	defer c.Close()
	start := time.Now()
	if _, err := c.Tools(ctx); err == nil || !strings.Contains(err.Error(), `the MCP server of "silent" did not answer initialize within `) || !strings.Contains(err.Error(), "; it was stopped") {
		t.Errorf("silent: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("silent took %s to give up", d)
	}
	cmd, env = mcptest.Command(mcptest.ModeExit, "")
	c2, _ := New(Config{Name: "exits", Command: cmd, Env: env, StartTimeout: 5 * time.Second})
	defer c2.Close()
	if _, err := c2.Tools(ctx); err == nil || !strings.Contains(err.Error(), "exited before it answered initialize: it exited with exit status 2; its stderr ends: boom: no configuration") {
		t.Errorf("exits: %v", err)
	}
	c3, _ := New(Config{Name: "missing", Command: []string{"/nonexistent/mcp-server"}})
	defer c3.Close()
	if _, err := c3.Tools(ctx); err == nil || !strings.Contains(err.Error(), `cannot start the MCP server of "missing" (/nonexistent/mcp-server): no such file or directory`) {
		t.Errorf("missing: %v", err)
	}
}

// TestFingerprint: the same tool list gives the same fingerprint; one
// more tool changes it.
func TestFingerprint(t *testing.T) {
	t.Parallel()
	fp := func(mode string) string {
		c, _ := stdio(t, mode)
		h := sha256.New()
		if err := c.Fingerprint(context.Background(), h); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%x", h.Sum(nil))
	}
	a, b, extra := fp(mcptest.ModeTools), fp(mcptest.ModeTools), fp(mcptest.ModeTools2)
	if a != b || a == extra {
		t.Errorf("fingerprints: %s %s %s", a, b, extra)
	}
}

// TestHTTP: a streamable HTTP server that wants a bearer token: the token
// file's token works, a wrong one is refused, and the token never shows
// in an error.
func TestHTTP(t *testing.T) {
	t.Parallel()
	srv := mcptest.Server(false)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer right-token" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good"), filepath.Join(dir, "bad")
	os.WriteFile(good, []byte("right-token\n"), 0o600)
	os.WriteFile(bad, []byte("wrong-token\n"), 0o600)
	ctx := context.Background()
	c, _ := New(Config{Name: "web", URL: ts.URL, TokenFile: good, StartTimeout: 5 * time.Second})
	defer c.Close()
	if out, err := c.Call(ctx, `lookup {"id": 5}`, lim); err != nil || !strings.HasPrefix(out.Text, "item 5") {
		t.Errorf("with the token: %v %v", out, err)
	}
	c2, _ := New(Config{Name: "web", URL: ts.URL, TokenFile: bad, StartTimeout: 5 * time.Second})
	defer c2.Close()
	_, err := c2.Tools(ctx)
	if err == nil || !strings.Contains(err.Error(), "refused the token (HTTP 401)") || strings.Contains(err.Error(), "wrong-token") {
		t.Errorf("a wrong token: %v", err)
	}
	c3, _ := New(Config{Name: "web", URL: ts.URL, TokenFile: filepath.Join(dir, "missing")})
	defer c3.Close()
	if _, err := c3.Tools(ctx); err == nil || !strings.Contains(err.Error(), "cannot read the token file") {
		t.Errorf("a missing token file: %v", err)
	}
}
