package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/screen/screentest"
	"github.com/memreview/memreview/ui/mcpserver"
)

// postH is post, with the response's headers.
func postH(t testing.TB, url, body string, hdr map[string]string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	return res.StatusCode, res.Header, string(b)
}

func addToken(t testing.TB, svc *app.Service, req app.TokenRequest) string {
	t.Helper()
	tok, _, err := svc.AddToken(req)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// A revoked token is refused at its very next request, on a session it
// opened while it was good; and once any agent token exists, a request
// without one is refused (401 with a Bearer challenge).
func TestRevokedTokenRefusedAtNextRequest(t *testing.T) {
	t.Parallel()
	w := newWorld(t, mcpserver.Options{})
	url := serveHTTP(t, w.srv, "")
	if code, _, _ := postH(t, url, initBody, nil); code != http.StatusOK {
		t.Fatalf("no credentials exist yet: status %d, want 200", code)
	}
	tok := addToken(t, w.svc, app.TokenRequest{Name: "agent-a"})
	code, hdr, _ := postH(t, url, initBody, nil)
	if code != http.StatusUnauthorized || !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Bearer ") {
		t.Fatalf("no token once one exists: %d %q, want 401 with a Bearer challenge", code, hdr.Get("WWW-Authenticate"))
	}
	cs, err := httpClient(t, context.Background(), url, tok, "client-a")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var out mcpserver.SearchOut
	mustCall(t, cs, mcpserver.ToolSearch, map[string]any{"query": "orders"}, &out)
	if _, err := w.svc.RevokeToken("agent-a"); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: mcpserver.ToolSearch, Arguments: map[string]any{"query": "orders"}}); err == nil {
		t.Fatal("the revoked token's next call was answered")
	}
	code, hdr, _ = postH(t, url, initBody, map[string]string{"Authorization": "Bearer " + tok})
	if code != http.StatusUnauthorized || !strings.Contains(hdr.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Fatalf("revoked token: %d %q, want 401 invalid_token", code, hdr.Get("WWW-Authenticate"))
	}
	tokB := addToken(t, w.svc, app.TokenRequest{Name: "agent-b"})
	csB, err := httpClient(t, context.Background(), url, tokB, "client-b")
	if err != nil {
		t.Fatalf("a good token after a revocation: %v", err)
	}
	csB.Close()
}

// twoEnvWorld is the test bank plus records and a proposal in env docs.
func twoEnvWorld(t *testing.T, opt mcpserver.Options) (*world, string) {
	t.Helper()
	w := newWorld(t, opt)
	docs := []review.Record{
		{ID: "mem_d1", Lemma: "Docs: the handbook lives under docs/handbook; orders are described there.", Category: review.Fact,
			Scope: review.Scope{Env: "docs"}, Confidence: 0.9, Status: review.Active},
		{ID: "mem_any", Lemma: "Orders are always read before they are changed.", Category: review.Convention, Confidence: 0.7, Status: review.Active},
	}
	if err := w.store.PutRecords(docs, "test", "fixture"); err != nil {
		t.Fatal(err)
	}
	ps := []review.Proposal{{Op: review.OpUpdate, Targets: []review.Target{{ID: "mem_d1"}}, Rationale: "docs moved",
		Record: &review.Record{ID: "mem_d1", Lemma: "Docs: the handbook moved to docs/guide.", Category: review.Fact, Scope: review.Scope{Env: "docs"}, Confidence: 0.8}}}
	if err := w.svc.AddProposals(ps, nil); err != nil {
		t.Fatal(err)
	}
	return w, ps[0].ID
}

// An agent scoped to env shop cannot read or propose outside it through
// any tool, resource, subscription or completion: docs records and
// proposals do not exist for it; records of no environment it sees.
func TestScopedAgentStaysInItsEnvironment(t *testing.T) {
	t.Parallel()
	w, docsProp := twoEnvWorld(t, mcpserver.Options{})
	url := serveHTTP(t, w.srv, "")
	tok := addToken(t, w.svc, app.TokenRequest{Name: "shop-agent", Envs: []string{"shop"}})
	cs, err := httpClient(t, context.Background(), url, tok, "shop client")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	var out mcpserver.SearchOut
	mustCall(t, cs, mcpserver.ToolSearch, map[string]any{"query": "orders docs handbook", "k": 50}, &out)
	var ids []string
	for _, r := range out.Records {
		ids = append(ids, r.ID)
		if r.Scope.Env != "shop" && r.Scope.Env != "" {
			t.Fatalf("search gave %s of env %q", r.ID, r.Scope.Env)
		}
	}
	if !slices.Contains(ids, "mem_0002") || !slices.Contains(ids, "mem_any") {
		t.Fatalf("search gave %v; want shop's and the env-less record", ids)
	}
	refused := map[string]string{}
	refused["search env docs"] = call(t, cs, mcpserver.ToolSearch, map[string]any{"query": "handbook", "env": "docs"}, nil)
	refused["read docs record"] = call(t, cs, mcpserver.ToolRead, map[string]any{"id": "mem_d1"}, nil)
	refused["status of a docs proposal"] = call(t, cs, mcpserver.ToolStatus, map[string]any{"proposal_id": docsProp}, nil)
	docsCreate := createArgs("Docs: a new page.")
	docsCreate["record"].(map[string]any)["scope"] = map[string]any{"env": "docs"}
	refused["propose to docs"] = call(t, cs, mcpserver.ToolPropose, docsCreate, nil)
	refused["propose targeting a docs record"] = call(t, cs, mcpserver.ToolPropose, map[string]any{"op": "delete", "targets": []string{"mem_d1"}, "rationale": "gone"}, nil)
	probeDocs := createArgs("Shop: a probe of docs.")
	probeDocs["record"].(map[string]any)["checks"] = []map[string]any{{"env": "docs", "input": "ls"}}
	refused["a check probing docs"] = call(t, cs, mcpserver.ToolPropose, probeDocs, nil)
	for what, e := range refused {
		if e == "" {
			t.Errorf("%s: answered, want a tool error", what)
		}
		if strings.Contains(e, "handbook") {
			t.Errorf("%s: the error shows docs text: %s", what, e)
		}
	}
	for _, uri := range []string{mcpserver.RecordURI + "mem_d1", mcpserver.ProposalURI + docsProp} {
		if res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("resources/read %s answered: %+v", uri, res)
		}
		if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); err == nil {
			t.Errorf("subscribe to %s accepted", uri)
		}
	}
	if res, err := cs.Complete(context.Background(), &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: mcpserver.RecordURI + "{id}"},
		Argument: mcp.CompleteParamsArgument{Name: "id", Value: "mem_d"}}); err == nil && res != nil && slices.Contains(res.Completion.Values, "mem_d1") {
		t.Error("completion offered a docs record id")
	}
	// In scope, the same calls work; a create naming no env is shop's.
	mustCall(t, cs, mcpserver.ToolRead, map[string]any{"id": "mem_0001"}, nil)
	noEnv := createArgs("Shop: totals are in cents.")
	delete(noEnv["record"].(map[string]any), "scope")
	var prop mcpserver.ProposeOut
	mustCall(t, cs, mcpserver.ToolPropose, noEnv, &prop)
	p, err := w.store.Proposal(prop.ProposalID)
	if err != nil || p.Record.Scope.Env != "shop" || p.Source != "mcp:shop-agent" || p.CuratorRun != "mcp:shop-agent" {
		t.Fatalf("in-scope proposal: %+v %v", p, err)
	}
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: mcpserver.RecordURI + "mem_0001"}); err != nil {
		t.Fatalf("resources/read of a shop record: %v", err)
	}
}

// A credential's scopes decide which tools its sessions are offered, and
// a call to one it lacks is refused.
func TestScopesLimitTheToolsOffered(t *testing.T) {
	t.Parallel()
	w := newWorld(t, mcpserver.Options{})
	url := serveHTTP(t, w.srv, "")
	for _, c := range []struct {
		scopes []string
		want   []string
	}{
		{[]string{review.ScopeRead}, []string{mcpserver.ToolRead, mcpserver.ToolSearch, mcpserver.ToolStatus}},
		{[]string{review.ScopePropose}, []string{mcpserver.ToolPropose, mcpserver.ToolSubmit}},
		{nil, []string{mcpserver.ToolRead, mcpserver.ToolSearch, mcpserver.ToolPropose, mcpserver.ToolStatus, mcpserver.ToolSubmit, mcpserver.ToolMemory}},
	} {
		name := "agent-" + strings.Join(c.scopes, "-")
		tok := addToken(t, w.svc, app.TokenRequest{Name: strings.TrimSuffix(name, "-"), Scopes: c.scopes})
		cs, err := httpClient(t, context.Background(), url, tok, name)
		if err != nil {
			t.Fatal(err)
		}
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tl := range res.Tools {
			got = append(got, tl.Name)
		}
		slices.Sort(got)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("scopes %v: tools %v, want %v", c.scopes, got, want)
		}
		if !slices.Contains(c.scopes, review.ScopePropose) && c.scopes != nil {
			if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: mcpserver.ToolPropose, Arguments: createArgs("x")}); err == nil && !res.IsError {
				t.Errorf("scopes %v: memory_propose answered", c.scopes)
			}
		}
		cs.Close()
	}
}

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time       { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Set(t time.Time)      { c.mu.Lock(); c.t = t; c.mu.Unlock() }
func (c *fakeClock) Add(d time.Duration)  { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }
func newFakeClock(t time.Time) *fakeClock { return &fakeClock{t: t} }

// 20 agents, each at its rate limit of 3 proposals a minute, propose
// every 2 s of the server's clock for 30 s: exactly 3 proposals each are
// queued, the rest refused with a tool error that says so; the audit
// holds every call with its status. The clock is the server's, moved by
// the test, so the 30 s take no real time.
func TestRateLimitedAgentsLeaveExactlyTheAllowed(t *testing.T) {
	t.Parallel()
	const agents, rate, step, span = 20, 3, 5 * time.Second, 30 * time.Second
	clock := newFakeClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	w := newWorld(t, mcpserver.Options{Now: clock.Now})
	url := serveHTTP(t, w.srv, "")
	before := queueLen(t, w.store)
	sessions := make([]*mcp.ClientSession, agents)
	for i := range sessions {
		tok := addToken(t, w.svc, app.TokenRequest{Name: fmt.Sprintf("agent-%02d", i), RatePerMin: rate})
		cs, err := httpClient(t, context.Background(), url, tok, fmt.Sprintf("client %d", i))
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		sessions[i] = cs
	}
	var mu sync.Mutex
	queued, limited := map[int]int{}, map[int]int{}
	calls := 0
	for at := time.Duration(0); at <= span; at += step {
		clock.Set(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).Add(at))
		var wg sync.WaitGroup
		for i, cs := range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: mcpserver.ToolPropose, Arguments: createArgs(fmt.Sprintf("Agent %d at %s.", i, at))})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					t.Errorf("agent %d: %v", i, err)
				case !res.IsError:
					queued[i]++
				case strings.Contains(text(res), "rate limit: this credential may propose or submit 3 times a minute; try again in"):
					limited[i]++
				default:
					t.Errorf("agent %d: unexpected tool error %s", i, text(res))
				}
			}()
		}
		wg.Wait()
		calls++
	}
	for i := range agents {
		if queued[i] != rate || limited[i] != calls-rate {
			t.Errorf("agent %d: %d queued, %d limited; want %d and %d", i, queued[i], limited[i], rate, calls-rate)
		}
	}
	if n := queueLen(t, w.store) - before; n != agents*rate {
		t.Fatalf("%d proposals queued, want exactly %d", n, agents*rate)
	}
	// A minute after its first, an agent may propose again.
	clock.Add(time.Minute - span + time.Second)
	mustCall(t, sessions[0], mcpserver.ToolPropose, createArgs("Agent 0 a minute later."), nil)
	es, err := w.svc.Audit(review.AuditFilter{Agent: "agent-07"})
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, e := range es {
		if e.Tool != mcpserver.ToolPropose || e.ArgBytes == 0 || e.Client != "client 7" {
			t.Fatalf("audit entry %+v", e)
		}
		n[e.Status]++
	}
	if n[review.AuditOK] != rate || n[review.AuditRateLimited] != calls-rate {
		t.Fatalf("audit of agent-07: %v, want %d ok and %d rate-limited", n, rate, calls-rate)
	}
}

// memory_propose with a secret is refused with a tool error naming the
// field, the kind and the position; nothing is queued, and neither the
// error, the server's log nor the audit holds the secret.
func TestProposeWithASecret(t *testing.T) {
	t.Parallel()
	logs := &syncBuffer{}
	w := newWorld(t, mcpserver.Options{Logger: slogTo(logs)})
	cs := w.connect(t, "claude-code", nil)
	secret := screentest.Secret(5)
	before := queueLen(t, w.store)
	e := call(t, cs, mcpserver.ToolPropose, createArgs("Deploy with "+secret+" on the shop host."), nil)
	if e == "" || !strings.Contains(e, `field "record.lemma"`) || !strings.Contains(e, "holds a secret (github-pat) at byte 12") {
		t.Fatalf("tool error %q", e)
	}
	if strings.Contains(e, secret) || strings.Contains(logs.String(), secret) {
		t.Fatal("the error or the log holds the secret")
	}
	if queueLen(t, w.store) != before {
		t.Fatal("a proposal with a secret was queued")
	}
	es, err := w.svc.Audit(review.AuditFilter{})
	if err != nil || len(es) != 1 || es[0].Status != review.AuditError {
		t.Fatalf("audit %+v %v", es, err)
	}
	b, _ := json.Marshal(es)
	if strings.Contains(string(b), secret) {
		t.Fatal("the audit holds the secret")
	}
	if f := bankFileHolding(t, w.dir, secret); f != "" {
		t.Fatalf("%s holds the secret", f)
	}
}

func slogTo(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// bankFileHolding names a file under dir that holds s ("" when none does).
func bankFileHolding(t testing.TB, dir, s string) string {
	t.Helper()
	var found string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), s) {
				found = p
			}
		}
		return nil
	})
	return found
}
