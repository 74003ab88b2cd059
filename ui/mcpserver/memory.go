package mcpserver

// The memory tool: a backend for Claude's memory tool (memory_20250818).
// The MCP tool "memory" takes exactly the memory tool's commands, and POST
// /memory on the HTTP server takes the same input as its body, so an
// application can forward Claude's tool calls verbatim. The service's
// memory tool use case (review/app/memorytool.go) maps paths to records
// and queues every write as a pending proposal; this file only carries
// calls to it, one session per MCP session or per Memreview-Session name.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

// ToolMemory is the memory tool's name, as Claude calls it.
const ToolMemory = "memory"

// MemoryPath is where POST /memory lives on the HTTP server; SessionHeader
// names the memory tool session a request belongs to.
const (
	MemoryPath    = "/memory"
	SessionHeader = "Memreview-Session"
)

// MemoryRunner runs one memory tool session's commands.
type MemoryRunner interface {
	Run(ctx context.Context, cmd app.MemoryCommand) (string, error)
}

// MemoryService is a Service that can back the memory tool: it starts a session
// for a client.
type MemoryService interface {
	MemorySession(client string) MemoryRunner
}

// MemorySession starts a memory tool session on the service.
func (b appService) MemorySession(client string) MemoryRunner { return b.s.NewMemorySession(client) }

// memorySchema is the memory tool's input: one object per command, told
// apart by "command".
func memorySchema() *jsonschema.Schema {
	str := func(desc string) *jsonschema.Schema { return &jsonschema.Schema{Type: "string", Description: desc} }
	path := func() *jsonschema.Schema {
		return str("a path under /memories: /memories/ENV/CATEGORY/NAME for a record")
	}
	command := func(name string, props map[string]*jsonschema.Schema, req ...string) *jsonschema.Schema {
		var c any = name
		props["command"] = &jsonschema.Schema{Type: "string", Const: &c}
		return &jsonschema.Schema{Type: "object", Properties: props, Required: append([]string{"command"}, req...),
			AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}}
	}
	return &jsonschema.Schema{
		Type:     "object",
		Required: []string{"command"},
		Properties: map[string]*jsonschema.Schema{"command": {Type: "string", Description: "what to do",
			Enum: []any{"view", "create", "str_replace", "insert", "delete", "rename"}}},
		OneOf: []*jsonschema.Schema{
			command("view", map[string]*jsonschema.Schema{"path": path(),
				"view_range": {Type: "array", Items: &jsonschema.Schema{Type: "integer"}, Description: "[first, last] lines to show, 1-based; last -1 for the end"}}, "path"),
			command("create", map[string]*jsonschema.Schema{"path": path(), "file_text": str("the file's text")}, "path", "file_text"),
			command("str_replace", map[string]*jsonschema.Schema{"path": path(), "old_str": str("text that appears exactly once in the file"),
				"new_str": str("what replaces it")}, "path", "old_str", "new_str"),
			command("insert", map[string]*jsonschema.Schema{"path": path(), "insert_line": {Type: "integer", Description: "insert after this line (0: at the top)"},
				"insert_text": str("the text to insert")}, "path", "insert_line", "insert_text"),
			command("delete", map[string]*jsonschema.Schema{"path": path()}, "path"),
			command("rename", map[string]*jsonschema.Schema{"old_path": path(), "new_path": path()}, "old_path", "new_path"),
		},
	}
}

const memoryDescription = "Claude's memory tool (memory_20250818) over memreview's reviewed memory bank. Check /memories before a task: view a directory (two levels deep) or a file (with line numbers). " +
	"A file is a memory record at /memories/ENV/CATEGORY/NAME (ENV _any for records that apply anywhere). create, str_replace, insert, delete and rename never change the bank at once: " +
	"each queues a pending proposal a person reviews (the result names it, 'pending review as prop_N'), and your own views show your writes meanwhile."

// addMemoryTool offers the memory tool on m when the bank can back it
// (m offers reading and proposing: the tool does both).
func (s *Server) addMemoryTool(m *mcp.Server) {
	mb, ok := s.bank.(MemoryService)
	if !ok || s.opt.ReadOnly {
		return
	}
	s.mu.Lock()
	if s.memory == nil {
		s.memory = &memorySessions{bank: mb, byMCP: map[*mcp.ServerSession]MemoryRunner{}, byName: map[string]MemoryRunner{}}
	}
	s.mu.Unlock()
	mcp.AddTool(m, &mcp.Tool{Name: ToolMemory, Title: "Memory (Claude's memory tool)", Description: memoryDescription, InputSchema: memorySchema(),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: new(bool), OpenWorldHint: new(bool)}},
		s.memoryCall)
}

// memoryRefusal is why principal p may not run cmd through the memory
// tool, or nil: the tool reads and proposes over the whole bank, so a
// credential limited to environments or tags gets memory_search and
// memory_propose instead, and a write counts against the agent's rate.
func (s *Server) memoryRefusal(p *Principal, cmd app.MemoryCommand) error {
	if !p.Can(review.ScopeRead) || !p.Can(review.ScopePropose) {
		return &refusal{"the memory tool needs the read and propose scopes, which this credential does not have both of"}
	}
	if p.scoped() {
		return &refusal{"the memory tool is not offered to a credential limited to environments or tags; use memory_search and memory_propose"}
	}
	if cmd.Command != "view" {
		if err := s.limit.allow(p.Agent(), p.RatePerMin); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) memoryCall(ctx context.Context, req *mcp.CallToolRequest, in app.MemoryCommand) (*mcp.CallToolResult, any, error) {
	who := principalOf(req.Extra)
	if err := s.memoryRefusal(who, in); err != nil {
		return nil, nil, err
	}
	out, err := s.memory.forMCP(req.Session, who, s).Run(ctx, in)
	if err != nil {
		var te *app.MemoryToolError
		if !errors.As(err, &te) {
			s.log.Warn("memory tool failed", "command", in.Command, "err", err)
		}
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out}}}, nil, nil
}

// memorySessions keeps one memory tool session per MCP session and per
// HTTP session name.
type memorySessions struct {
	bank MemoryService

	mu     sync.Mutex
	byMCP  map[*mcp.ServerSession]MemoryRunner
	byName map[string]MemoryRunner
	order  []string // names, oldest first
}

// maxNamedSessions bounds the HTTP sessions remembered.
const maxNamedSessions = 256

func (ms *memorySessions) forMCP(ss *mcp.ServerSession, who *Principal, s *Server) MemoryRunner {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if r, ok := ms.byMCP[ss]; ok && ss != nil {
		return r
	}
	live := map[*mcp.ServerSession]bool{}
	for _, m := range s.servers() {
		for x := range m.Sessions() {
			live[x] = true
		}
	}
	for x := range ms.byMCP {
		if !live[x] {
			delete(ms.byMCP, x)
		}
	}
	r := ms.bank.MemorySession(agentLabel(who, ss))
	if ss != nil {
		ms.byMCP[ss] = r
	}
	return r
}

func (ms *memorySessions) forName(name string) MemoryRunner {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if r, ok := ms.byName[name]; ok {
		return r
	}
	if len(ms.order) >= maxNamedSessions {
		delete(ms.byName, ms.order[0])
		ms.order = ms.order[1:]
	}
	r := ms.bank.MemorySession(name)
	ms.byName[name] = r
	ms.order = append(ms.order, name)
	return r
}

// memoryHTTP serves POST /memory: the memory tool's input as a JSON body,
// the tool result as text/plain. 200 is a result; 422 is the tool's own
// refusal (send it to the model with is_error); 400 a body that is not a
// memory tool command; 500 the bank failing.
func (s *Server) memoryHTTP() http.Handler {
	cop := http.NewCrossOriginProtection()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.memory == nil {
			http.Error(w, "this server offers no memory tool (it is read-only)", http.StatusNotFound)
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "POST the memory tool's input as JSON", http.StatusMethodNotAllowed)
			return
		}
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil && hostLoopback(local.String()) && !hostLoopback(r.Host) {
			http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
			return
		}
		if err := cop.Check(r); err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
			http.Error(w, "the body must be the memory tool's input as JSON (Content-Type: application/json)", http.StatusUnsupportedMediaType)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
		if err != nil {
			http.Error(w, fmt.Sprintf("the body is over %d MiB", MaxRequestBytes>>20), http.StatusRequestEntityTooLarge)
			return
		}
		var cmd app.MemoryCommand
		dec := json.NewDecoder(strings.NewReader(string(body)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cmd); err != nil {
			http.Error(w, "the body is not a memory tool command: "+strings.TrimPrefix(err.Error(), "json: "), http.StatusBadRequest)
			return
		}
		who := principalOf(&mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context())})
		if err := s.memoryRefusal(who, cmd); err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		name := strings.TrimSpace(r.Header.Get(SessionHeader))
		if name == "" {
			name = "http"
		}
		if who.Name != "" {
			name = who.Name + "/" + name // one agent's sessions apart from another's
		}
		out, err := s.memory.forName(name).Run(r.Context(), cmd)
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		var te *app.MemoryToolError
		switch {
		case errors.As(err, &te):
			w.WriteHeader(http.StatusUnprocessableEntity)
			io.WriteString(w, te.Msg)
		case err != nil:
			s.log.Warn("memory tool failed", "command", cmd.Command, "err", err)
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, "memreview could not run the command: "+err.Error())
		default:
			io.WriteString(w, out)
		}
	})
}

// hostLoopback reports whether a host or host:port is a loopback address.
func hostLoopback(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	return loopback(strings.Trim(host, "[]"))
}
