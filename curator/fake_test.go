package curator

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
)

// wireReq is a chat-completions request as the fake server decodes it.
type wireReq struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string `json:"role"`
		Content    string `json:"content"`
		Name       string `json:"name"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct{ Name, Arguments string }
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string          `json:"name"`
			Strict     bool            `json:"strict"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string          `json:"name"`
			Strict bool            `json:"strict"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	} `json:"response_format"`
	auth string
}

func (r *wireReq) toolNames() []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// toolResult returns the content of the tool message answering callID.
func (r *wireReq) toolResult(t *testing.T, callID string) string {
	t.Helper()
	for _, m := range r.Messages {
		if m.Role == "tool" && m.ToolCallID == callID {
			return m.Content
		}
	}
	t.Fatalf("no tool message answers %s; messages: %+v", callID, r.Messages)
	return ""
}

func (r *wireReq) last() string { return r.Messages[len(r.Messages)-1].Content }

// reply is one scripted answer of the fake server.
type reply struct {
	status int
	header map[string]string
	delay  time.Duration
	body   string
	check  func(t *testing.T, r *wireReq) // runs on the request this answers
}

type call struct{ id, name, args string }

func toolReply(calls ...call) reply {
	var tcs []map[string]any
	for _, c := range calls {
		tcs = append(tcs, map[string]any{"id": c.id, "type": "function", "function": map[string]any{"name": c.name, "arguments": c.args}})
	}
	return completion(map[string]any{"role": "assistant", "tool_calls": tcs})
}

func textReply(s string) reply { return completion(map[string]any{"role": "assistant", "content": s}) }

func completion(msg map[string]any) reply {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
	})
	return reply{status: 200, body: string(b)}
}

func (r reply) with(check func(t *testing.T, r *wireReq)) reply { r.check = check; return r }

func errReply(status int, header map[string]string) reply {
	return reply{status: status, header: header, body: `{"error":{"message":"scripted failure","type":"server_error"}}`}
}

// fakeLLM is a scripted OpenAI-compatible server.
type fakeLLM struct {
	t       *testing.T
	mu      sync.Mutex
	replies []reply
	reqs    []*wireReq
	srv     *httptest.Server
}

func newFakeLLM(t *testing.T, replies ...reply) *fakeLLM {
	f := &fakeLLM{t: t, replies: replies}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeLLM) url() string { return f.srv.URL + "/v1" }

func (f *fakeLLM) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		f.t.Errorf("unexpected %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req wireReq
	if err := json.Unmarshal(body, &req); err != nil {
		f.t.Errorf("request is not JSON: %v", err)
	}
	req.auth = r.Header.Get("Authorization")
	f.mu.Lock()
	f.reqs = append(f.reqs, &req)
	if len(f.replies) == 0 {
		f.mu.Unlock()
		f.t.Errorf("request %d beyond the script", len(f.reqs))
		http.Error(w, `{"error":{"message":"script exhausted"}}`, 500)
		return
	}
	rp := f.replies[0]
	f.replies = f.replies[1:]
	f.mu.Unlock()
	if rp.check != nil {
		rp.check(f.t, &req)
	}
	if rp.delay > 0 {
		select {
		case <-time.After(rp.delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range rp.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rp.status)
	io.WriteString(w, rp.body)
}

func (f *fakeLLM) requests() []*wireReq {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*wireReq(nil), f.reqs...)
}

func (f *fakeLLM) done() {
	f.t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.replies) != 0 {
		f.t.Errorf("%d scripted replies were never asked for", len(f.replies))
	}
}

// sleeper records the waits the retry transport asks for.
type sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

// testLLM points an LLM at f with short limits and a recorded sleep.
func testLLM(f *fakeLLM, sl *sleeper, mod func(*Settings)) LLM {
	s := Settings{BaseURL: f.url(), Model: "test-model", HTTPTimeout: 5 * time.Second, RunTimeout: 20 * time.Second, MaxRetries: 2}
	if mod != nil {
		mod(&s)
	}
	s = s.withDefaults()
	rt := &RetryTransport{MaxRetries: s.MaxRetries, Timeout: s.HTTPTimeout, Sleep: sl.sleep,
		Backoff: func(n int) time.Duration { return time.Duration(n) * 10 * time.Millisecond }}
	return LLM{Client: newClient(s, rt), Settings: s}
}

var clock = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)

// newBank creates a bank with a SQLite env "shop" (items: widget, gadget),
// a files env "docs", records mem_1 (active) and mem_2 (retired), and a
// four-step trajectory traj_1 that already has a packet.
func newBank(t *testing.T) *store.Store {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Create(dir, store.Options{Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	db, err := sql.Open("sqlite", filepath.Join(dir, "shop.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE items_g1(item_id INTEGER PRIMARY KEY, name TEXT)`,
		`INSERT INTO items_g1 VALUES (1, 'widget'), (2, 'gadget')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "docs", "schema.md"), []byte("reviews join items on ref_id\nprices are in cents\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := st.SaveConfig(review.Config{Envs: []probe.Env{
		{Name: "shop", Kind: probe.KindSQL, Path: "shop.db"},
		{Name: "docs", Kind: probe.KindFiles, Path: "docs"},
	}}); err != nil {
		t.Fatal(err)
	}
	recs := []review.Record{
		{ID: "mem_1", Lemma: "In shop, item names are in items_g1.name.", Category: review.Fact, Scope: review.Scope{Env: "shop"}, Confidence: 0.8, Status: review.Active},
		{ID: "mem_2", Lemma: "Old: item names are in items.title.", Category: review.Fact, Scope: review.Scope{Env: "shop"}, Confidence: 0.5, Status: review.Retired},
	}
	if err := st.PutRecords(recs, "test", "fixture"); err != nil {
		t.Fatal(err)
	}
	if err := st.PutTrajectories([]review.Trajectory{testTrajectory(true)}); err != nil {
		t.Fatal(err)
	}
	return st
}

func testTrajectory(withPacket bool) review.Trajectory {
	tr := review.Trajectory{
		ID: "traj_1", Env: "shop", Task: "List the item names.",
		Steps: []review.Step{
			{Role: "user", Content: "List the item names."},
			{Role: "assistant", ToolCalls: []review.ToolCall{{ID: "c1", Name: "sql", Arguments: `{"sql":"SELECT name FROM items_g1"}`, Result: "widget, gadget"}}},
			{Role: "tool", ToolCallID: "c1", Content: "widget, gadget"},
			{Role: "assistant", Content: "widget, gadget"},
		},
		Outcome:   review.Outcome{Passed: true, Reward: 1},
		Retrieved: []string{"mem_1"},
	}
	if withPacket {
		tr.Distilled = &review.Packet{Task: "List the item names.", Observations: []review.Observation{{Steps: review.StepRange{From: 2, To: 3}, Text: "SELECT name FROM items_g1 returned widget, gadget"}}, Answer: "widget, gadget"}
	}
	return tr
}

func queueLen(t *testing.T, st *store.Store) int {
	t.Helper()
	q, err := st.Queue()
	if err != nil {
		t.Fatal(err)
	}
	return len(q)
}

func mustContain(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s = %q, want it to contain %q", what, got, w)
		}
	}
}

func args(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return string(b)
}
