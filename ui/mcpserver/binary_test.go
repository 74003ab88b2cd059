package mcpserver_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memreview/memreview/sample/testenv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/ui/mcpserver"
)

// memreviewBin is the memreview binary, built once for the package's tests.
var memreviewBin string

func TestMain(m *testing.M) {
	testenv.LessGC()
	dir, temp, err := binDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	memreviewBin = filepath.Join(dir, "memreview")
	build := exec.Command("go", "build", "-o", memreviewBin, "github.com/memreview/memreview")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build memreview: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	if temp {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// binDir is where the binary is built: a folder of the user's cache for
// this checkout, where go build finds the last run's binary up to date
// when the code has not changed (a fraction of a second instead of a
// link of seconds); a temporary folder (temp) without a cache folder.
func binDir() (dir string, temp bool, err error) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	cache, cerr := os.UserCacheDir()
	if err == nil && cerr == nil {
		dir = filepath.Join(cache, "memreview", "testbin", fmt.Sprintf("%x", sha256.Sum256([]byte(root)))[:16])
		if os.MkdirAll(dir, 0o755) == nil {
			return dir, false, nil
		}
	}
	dir, err = os.MkdirTemp("", "memreview-mcp-test")
	return dir, true, err
}

// bankDir makes a bank on disk with the test records and trajectory, closed
// so that a memreview process can open it.
func bankDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	s, err := store.Create(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.PutRecords(testRecords(), "test", "fixture"); err != nil {
		t.Fatal(err)
	}
	if err := s.PutTrajectories([]review.Trajectory{testTrajectory()}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func memreview(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(memreviewBin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("memreview %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestBinaryStdioProposeDecideRead(t *testing.T) {
	t.Parallel()
	dir := bankDir(t)
	ctx := context.Background()
	cmd := exec.Command(memreviewBin, "--bank", dir, "serve")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-agent", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var found mcpserver.SearchOut
	mustCall(t, cs, "memory_search", map[string]any{"query": "reviews join items", "env": "shop"}, &found)
	if len(found.Records) == 0 || found.Records[0].ID != "mem_0001" {
		t.Fatalf("search = %+v", found)
	}
	var prop mcpserver.ProposeOut
	mustCall(t, cs, "memory_propose", createArgs("Stdio agents propose; people decide."), &prop)
	// A second server on the same bank (another agent's) shares the index.
	cs2, err := mcp.NewClient(&mcp.Implementation{Name: "second", Version: "1"}, nil).Connect(ctx,
		&mcp.CommandTransport{Command: exec.Command(memreviewBin, "--bank", dir, "serve", "--read-only")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs2.Close()
	var found2 mcpserver.SearchOut
	mustCall(t, cs2, "memory_search", map[string]any{"query": "reviews join items", "env": "shop"}, &found2)
	if len(found2.Records) == 0 || found2.Records[0].ID != "mem_0001" {
		t.Fatalf("second server's search = %+v", found2)
	}

	if q := memreview(t, "--bank", dir, "queue"); !strings.Contains(q, prop.ProposalID) || !strings.Contains(q, "pending") {
		t.Fatalf("queue does not list %s:\n%s", prop.ProposalID, q)
	}
	memreview(t, "--bank", dir, "--operator", "ana", "decide", "--note", "fine", prop.ProposalID, "accept")

	var st mcpserver.StatusOut
	mustCall(t, cs, "proposal_status", map[string]any{"proposal_id": prop.ProposalID}, &st)
	if st.Status != "accepted" || st.Operator != "ana" || len(st.RecordIDs) == 0 {
		t.Fatalf("status = %+v", st)
	}
	var rec mcpserver.RecordOut
	mustCall(t, cs, "memory_read", map[string]any{"id": st.RecordIDs[0]}, &rec)
	if rec.Lemma != "Stdio agents propose; people decide." || rec.Status != "active" {
		t.Fatalf("record = %+v", rec)
	}
	if e := call(t, cs, "memory_propose", map[string]any{"op": "create", "rationale": "r", "record": map[string]any{"lemma": "x", "category": "nope", "confidence": 0.5}}, nil); !strings.Contains(e, `field "record.category"`) {
		t.Fatalf("bad category over stdio: %q", e)
	}
}

var servingRE = regexp.MustCompile(`serving MCP on (http://\S+)`)

func TestBinaryHTTPWithTokenFile(t *testing.T) {
	t.Parallel()
	dir := bankDir(t)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("tok-123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(memreviewBin, "--bank", dir, "serve", "--http", "127.0.0.1:0", "--token-file", tokenFile)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(stderr)
	var url string
	logs := make(chan string, 100)
	for lines.Scan() {
		if m := servingRE.FindStringSubmatch(lines.Text()); m != nil {
			url = m[1]
			break
		}
	}
	if url == "" {
		t.Fatal("serve did not say where it listens")
	}
	go func() {
		for lines.Scan() {
			logs <- lines.Text()
		}
		close(logs)
	}()
	if code, _ := post(t, url, initBody, nil); code != 401 {
		t.Fatalf("no token: status %d, want 401", code)
	}
	cs, err := httpClient(t, context.Background(), url, "tok-123", "http-bin")
	if err != nil {
		t.Fatal(err)
	}
	mustCall(t, cs, "memory_read", map[string]any{"id": "mem_0001"}, nil)
	cs.Close()
	cmd.Process.Signal(syscall.SIGTERM)
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			t.Fatalf("serve exited with %v after SIGTERM", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop on SIGTERM")
	}
	var saw bool
	for l := range logs {
		saw = saw || strings.Contains(l, "refused unauthenticated request")
	}
	if !saw {
		t.Fatal("the 401 left no log line")
	}
}

func TestBinaryServeRefusals(t *testing.T) {
	t.Parallel()
	dir := bankDir(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--http", "0.0.0.0:0"}, "not a loopback address"},
		{[]string{"serve", "--token-file", "/nonexistent/token", "--http", "127.0.0.1:0"}, "read the token"},
	} {
		cmd := exec.Command(memreviewBin, append([]string{"--bank", dir}, c.args...)...)
		cmd.Env = append(os.Environ(), "MEMREVIEW_TOKEN=")
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Fatalf("%v: %v %q, want a refusal saying %q", c.args, err, out, c.want)
		}
	}
}

// A bad line on stdio costs that line only: the server answers it with a
// JSON-RPC error and goes on serving the session.
func TestBinaryStdioMalformedLines(t *testing.T) {
	t.Parallel()
	dir := bankDir(t)
	cmd := exec.Command(memreviewBin, "--bank", dir, "serve")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	out := bufio.NewReader(stdout)
	send := func(line string) { fmt.Fprintf(stdin, "%s\n", line) }
	recv := func() string {
		l, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("read from serve: %v", err)
		}
		return l
	}
	send(initBody)
	if l := recv(); !strings.Contains(l, `"id":1,"result"`) {
		t.Fatalf("initialize: %.200s", l)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, c := range []struct{ line, want string }{
		{`this is not json`, `"code":-32700`},
		{`{"id":5,"method":"ping"}`, `"id":5,"error":{"code":-32600`},
		{`[1,2,3]`, `"code":-32600`},
		{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"memory_write","arguments":{}}}`, `"id":6,"error"`},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"x","k":"five"}}}`, `"isError":true`},
		{`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"memory_propose","arguments":{"op":"create","rationale":"` + strings.Repeat("r", 10<<20) + `","record":{"lemma":"x","category":"fact","confidence":0.5}}}}`, `field \"rationale\"`},
		{`{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"` + strings.Repeat("p", mcpserver.MaxStdioLine) + `"}}`, `longer than 16 MiB`},
		// Valid JSON-RPC the SDK's decoder cannot take (issue 23 item 20):
		// each ended the whole server before the guard checked it.
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, `"id":null,"error":{"code":-32600`},
		{`{"jsonrpc":"2.0","id":[1],"method":"ping"}`, `"id":null,"error":{"code":-32600`},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, `"id":true,"error":{"code":-32600`},
		{`{"jsonrpc":"2.0","id":12,"method":5}`, `"id":12,"error":{"code":-32600,"message":"Invalid Request: \"method\" must be a string"`},
		{`{"jsonrpc":"2.0","id":13,"method":"ping","method":false}`, `"id":13,"error":{"code":-32600`},
		{`[{"jsonrpc":"2.0","id":14,"method":"ping"}]`, `"code":-32600,"message":"Invalid Request: batches are not supported`},
		{`{"jsonrpc":"2.0","id":15,"method":"ping","params":{"a":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}}`, `"id":15,"error":{"code":-32600,"message":"Invalid Request: the message nests`},
		{`{"jsonrpc":"2.0","id":16,"method":"ping","params":"x"}`, `"id":16,"error":{"code":-32600`},
		{`{"jsonrpc":"2.0","result":{}}`, `"id":null,"error":{"code":-32600`},
		{`{"jsonrpc":"2.0","id":"r1","error":"banana"}`, `"id":"r1","error":{"code":-32600`},
		// An id the SDK would answer as another id: 1.5 as 1, 2^53+1 as 2^53.
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `"id":1.5,"error":{"code":-32600`},
		{`{"jsonrpc":"2.0","id":1e1,"method":"ping"}`, `"id":1e1,"error":{"code":-32600`},
		{`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, `"id":9007199254740993,"error":{"code":-32600`},
		// A good message nested as deep as the SDK allows is served.
		{`{"jsonrpc":"2.0","id":17,"method":"ping","params":{"_meta":{"a":` + strings.Repeat("[", 997) + strings.Repeat("]", 997) + `}}}`, `"id":17,`},
		{`{"jsonrpc":"2.0","id":"s-18","method":"ping"}`, `"id":"s-18","result"`},
	} {
		send(c.line)
		l := recv()
		t.Logf("line %d: %.150s", i, l)
		if !strings.Contains(l, c.want) {
			t.Fatalf("line %d: answer %.300s, want %s", i, l, c.want)
		}
	}
	send(`{"jsonrpc":"2.0","id":10,"method":"ping"}`)
	if l := recv(); !strings.Contains(l, `"id":10,"result"`) {
		t.Fatalf("ping after the bad lines: %.200s", l)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve exited with %v when stdin closed", err)
	}
	s, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := queueLen(t, s); n != 0 {
		t.Fatalf("bad lines queued %d proposals", n)
	}
}
