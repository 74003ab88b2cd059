// Package llmtest is a local OpenAI-compatible chat-completions server for
// tests (no network): it answers each request with the next scripted
// Reply and keeps every request body, so a test can check what the model
// was told.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Reply is one scripted answer.
type Reply struct {
	Body string        // the response body (Text and Calls build one)
	Gate chan struct{} // when set, the answer waits until it is closed (or the request is cancelled)
	// Status, when set, answers that HTTP status with an error body
	// instead (Fail builds one).
	Status int
}

// Fail is an answer of HTTP status code with an OpenAI-style error body.
func Fail(code int) Reply { return Reply{Status: code} }

// Call is one tool call of a Calls reply; an empty ID is numbered.
type Call struct{ ID, Name, Args string }

// Text is an answer whose message content is content.
func Text(content string) Reply {
	return reply(map[string]any{"role": "assistant", "content": content}, "stop")
}

// Calls is an answer that calls the given tools.
func Calls(calls ...Call) Reply {
	var tcs []map[string]any
	for i, c := range calls {
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d", i+1)
		}
		tcs = append(tcs, map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Args}})
	}
	return reply(map[string]any{"role": "assistant", "tool_calls": tcs}, "tool_calls")
}

func reply(msg map[string]any, finish string) Reply {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish, "message": msg}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
	})
	return Reply{Body: string(b)}
}

// Server answers POST …/chat/completions with its script.
type Server struct {
	*httptest.Server
	t testing.TB

	mu       sync.Mutex
	respond  func(Request) Reply
	script   []Reply
	next     int
	bodies   []string
	fallback int
	cycle    bool
}

// New starts a server answering replies in order; it closes when the test
// ends. After the script it fails with 500 (SetFallback changes that), or
// starts over (Cycle).
func New(t testing.TB, replies ...Reply) *Server {
	s := &Server{t: t, script: replies}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// NewFunc starts a server that answers every request with respond(req):
// a scripted model whose answer depends on what it was told. respond is
// called from the server's goroutines, one call per request, possibly
// several at once.
func NewFunc(t testing.TB, respond func(Request) Reply) *Server {
	s := &Server{t: t, respond: respond}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Request is a chat-completions request as the server read it.
type Request struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	Tools    []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	Seed *int `json:"seed"`
}

// Message is one message of a Request.
type Message struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	ToolCallID string `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// ToolNames lists the tools the request declares.
func (r Request) ToolNames() []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Function.Name)
	}
	return out
}

// BaseURL is what curator.Settings.BaseURL takes: the server's /v1.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// SetFallback sets the status answered once the script has ended.
func (s *Server) SetFallback(status int) { s.mu.Lock(); s.fallback = status; s.mu.Unlock() }

// Cycle makes the script start over when it ends.
func (s *Server) Cycle() { s.mu.Lock(); s.cycle = true; s.mu.Unlock() }

// Requests returns every request body so far, in order.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		s.t.Errorf("llmtest: unexpected %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	if s.respond != nil {
		s.mu.Lock()
		s.bodies = append(s.bodies, string(body))
		s.mu.Unlock()
		var req Request
		if err := json.Unmarshal(body, &req); err != nil {
			s.t.Errorf("llmtest: a request that is not JSON: %v", err)
		}
		s.write(w, r, s.respond(req))
		return
	}
	s.mu.Lock()
	s.bodies = append(s.bodies, string(body))
	if s.cycle && s.next >= len(s.script) {
		s.next = 0
	}
	var rp *Reply
	if s.next < len(s.script) {
		rp = &s.script[s.next]
		s.next++
	}
	status := s.fallback
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if rp == nil {
		if status == 0 {
			status = http.StatusInternalServerError
		}
		w.WriteHeader(status)
		io.WriteString(w, `{"error":{"message":"scripted failure: the script ended","type":"server_error"}}`)
		return
	}
	s.write(w, r, *rp)
}

// write sends one reply, once its gate opens.
func (s *Server) write(w http.ResponseWriter, r *http.Request, rp Reply) {
	w.Header().Set("Content-Type", "application/json")
	if rp.Gate != nil {
		select {
		case <-rp.Gate:
		case <-r.Context().Done():
			return
		}
	}
	if rp.Status != 0 {
		w.WriteHeader(rp.Status)
		fmt.Fprintf(w, `{"error":{"message":"scripted failure: %d","type":"server_error"}}`, rp.Status)
		return
	}
	io.WriteString(w, rp.Body)
}
