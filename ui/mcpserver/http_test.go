package mcpserver_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/sample/testenv"
	"github.com/memreview/memreview/ui/mcpserver"
)

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// serveHTTP serves srv on a loopback httptest server and returns its /mcp URL.
func serveHTTP(t testing.TB, srv *mcpserver.Server, token string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := srv.StartWatch(ctx); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler(token))
	t.Cleanup(func() { cancel(); hs.Close() })
	return hs.URL + mcpserver.Path
}

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func httpClient(t testing.TB, ctx context.Context, url, token, name string) (*mcp.ClientSession, error) {
	hc := &http.Client{Transport: http.DefaultTransport}
	if token != "" {
		hc.Transport = bearer{token, http.DefaultTransport}
	}
	return mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends one raw JSON-RPC body and returns the status and body.
func post(t testing.TB, url, body string, hdr map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	return res.StatusCode, string(b)
}

func TestHTTPWithoutToken(t *testing.T) {
	t.Parallel()
	w := newWorld(t, mcpserver.Options{})
	url := serveHTTP(t, w.srv, "")
	cs, err := httpClient(t, context.Background(), url, "", "http-agent")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var found mcpserver.SearchOut
	mustCall(t, cs, "memory_search", map[string]any{"query": "orders cents"}, &found)
	if len(found.Records) == 0 || found.Records[0].ID != "mem_0002" {
		t.Fatalf("search = %+v", found)
	}
	var prop mcpserver.ProposeOut
	mustCall(t, cs, "memory_propose", createArgs("Over HTTP."), &prop)
	if p, err := w.store.Proposal(prop.ProposalID); err != nil || p.CuratorRun != "mcp:http-agent" {
		t.Fatalf("proposal = %+v, %v", p, err)
	}
	// DNS rebinding protection: a loopback server refuses a foreign Host.
	if code, _ := post(t, url, initBody, map[string]string{"Host": "evil.example.com"}); code != http.StatusForbidden {
		t.Fatalf("foreign Host header: status %d, want 403", code)
	}
}

func TestHTTPToken(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	w := newWorld(t, mcpserver.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	url := serveHTTP(t, w.srv, "s3cret-token")
	for _, c := range []struct{ name, auth string }{{"missing", ""}, {"wrong", "Bearer nope"}, {"not bearer", "Basic czNjcmV0"}} {
		hdr := map[string]string{}
		if c.auth != "" {
			hdr["Authorization"] = c.auth
		}
		code, body := post(t, url, initBody, hdr)
		if code != http.StatusUnauthorized || strings.Contains(body, "result") {
			t.Fatalf("%s token: %d %q, want 401 and no result", c.name, code, body)
		}
	}
	if n := strings.Count(logs.String(), "refused unauthenticated request"); n != 3 {
		t.Fatalf("%d log lines for 3 refusals:\n%s", n, logs)
	}
	if strings.Contains(logs.String(), "nope") || strings.Contains(logs.String(), "s3cret") {
		t.Fatal("the log shows a token")
	}
	if _, err := httpClient(t, context.Background(), url, "wrong", "x"); err == nil {
		t.Fatal("SDK client with a wrong token connected")
	}
	cs, err := httpClient(t, context.Background(), url, "s3cret-token", "agent")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	mustCall(t, cs, "memory_read", map[string]any{"id": "mem_0001"}, nil)
}

func TestHTTPBadRequests(t *testing.T) {
	t.Parallel()
	w := newWorld(t, mcpserver.Options{})
	url := serveHTTP(t, w.srv, "")
	cs, err := httpClient(t, context.Background(), url, "", "steady")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, c := range []struct{ name, body string }{
		{"malformed JSON", `{"jsonrpc":"2.0","id":1,"method":`},
		{"not JSON-RPC", `[1,2,3]`},
		{"10 MB request", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_propose","arguments":{"op":"create","rationale":"` + strings.Repeat("x", 10<<20) + `"}}}`},
	} {
		code, body := post(t, url, c.body, nil)
		if code < 400 || code >= 500 {
			t.Errorf("%s: status %d %.200q, want a 4xx", c.name, code, body)
		}
	}
	// The session still answers.
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	// The server keeps serving, and nothing was queued.
	mustCall(t, cs, "memory_read", map[string]any{"id": "mem_0002"}, nil)
	if n := queueLen(t, w.store); n != 0 {
		t.Fatalf("queue has %d proposals", n)
	}
}

// blockingBank holds memory_search until the caller goes away.
type blockingBank struct {
	mcpserver.Service
	started chan struct{}
	ended   chan error
}

func (b *blockingBank) Retrieve(ctx context.Context, req mcpserver.RetrieveRequest) ([]app.Retrieved, error) {
	if req.Query != "block" {
		return b.Service.Retrieve(ctx, req)
	}
	b.started <- struct{}{}
	select {
	case <-ctx.Done():
		b.ended <- ctx.Err()
		return nil, ctx.Err()
	case <-time.After(10 * time.Second):
		b.ended <- errors.New("never cancelled")
		return nil, errors.New("never cancelled")
	}
}

func TestHTTPClientDisconnectsMidCall(t *testing.T) {
	t.Parallel()
	w := newWorld(t, mcpserver.Options{})
	bb := &blockingBank{Service: w.bank, started: make(chan struct{}, 1), ended: make(chan error, 1)}
	url := serveHTTP(t, mcpserver.New(bb, mcpserver.Options{}), "")
	ctx, cancel := context.WithCancel(context.Background())
	quitter, err := httpClient(t, ctx, url, "", "quitter")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := quitter.CallTool(ctx, &mcp.CallToolParams{Name: "memory_search", Arguments: map[string]any{"query": "block"}})
		done <- err
	}()
	<-bb.started
	cancel() // the client goes away mid-call
	if err := <-done; err == nil {
		t.Fatal("the abandoned call returned no error")
	}
	select {
	case err := <-bb.ended:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the server's call ended with %v, want it cancelled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not cancel the abandoned call")
	}
	quitter.Close()
	other, err := httpClient(t, context.Background(), url, "", "other")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	mustCall(t, other, "memory_propose", createArgs("Still serving."), nil)
	if n := queueLen(t, w.store); n != 1 {
		t.Fatalf("queue has %d proposals, want 1", n)
	}
}

func TestHTTPConcurrentClients(t *testing.T) {
	t.Parallel()
	clients, rounds := 100, 1
	if testenv.CI() {
		rounds = 5
	}
	w := newWorld(t, mcpserver.Options{})
	url := serveHTTP(t, w.srv, "tok")
	errs := make(chan error, clients)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cs, err := httpClient(t, ctx, url, "tok", fmt.Sprintf("agent-%d", i))
			if err != nil {
				errs <- err
				return
			}
			defer cs.Close()
			for range rounds {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_search", Arguments: map[string]any{"query": "reviews join items"}})
				if err != nil || res.IsError {
					errs <- fmt.Errorf("client %d search: %v %v", i, err, res)
					return
				}
				res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_propose", Arguments: createArgs(fmt.Sprintf("Lesson from agent %d.", i))})
				if err != nil || res.IsError {
					errs <- fmt.Errorf("client %d propose: %v %v", i, err, res)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	q, _ := w.store.Queue()
	if len(q) != clients*rounds {
		t.Fatalf("queue has %d proposals, want %d", len(q), clients*rounds)
	}
	sources := map[string]bool{}
	for _, p := range q {
		sources[p.CuratorRun] = true
	}
	if len(sources) != clients {
		t.Fatalf("%d distinct sources, want %d", len(sources), clients)
	}
}
