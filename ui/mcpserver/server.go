package mcpserver

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure a Server.
type Options struct {
	ReadOnly bool         // only memory_search, memory_read and proposal_status
	Version  string       // reported to clients in initialize
	Logger   *slog.Logger // nil: discard
	// Now is the clock of rate limits and the audit; nil: time.Now.
	Now func() time.Time
	// SharedToken is the single bearer token of --token-file: one
	// unnamed credential with every scope ("" for none).
	SharedToken string
	// OAuth, when set, accepts the JWT access tokens it verifies.
	OAuth *OAuth
}

// Server is memreview's MCP server over one Service. One Server serves any
// number of sessions, over stdio or streamable HTTP.
type Server struct {
	bank Service
	opt  Options
	mcp  *mcp.Server
	log  *slog.Logger

	mu         sync.Mutex
	seen       map[*mcp.ServerSession]map[string]int // record versions each session read
	subscribed map[string]subscription               // resource URI → its subscriptions

	memory *memorySessions // the memory tool's sessions (memory.go); nil when not offered
	// variants are the SDK servers for principals whose scopes offer
	// fewer tools than mcp does (auth.go), by scope set.
	variants map[string]*mcp.Server
	agents   Agents // nil when the bank keeps no credentials or audit
	limit    *limiter
	now      func() time.Time
	tokens   sessionTokens // each session's token (session.go)
}

// instructions tell the agent what the server is for.
const (
	readInstructions = `memreview serves a reviewed long-term memory bank.
Before a task, call memory_search with the task text (and task_id) to get the records that apply; memory_read gives one record in full.`
	instructions = readInstructions + `
To change the bank, call memory_propose: it never writes a record, it queues a pending proposal that a person reviews with your trajectory and live probes. Submit the run first with trajectory_submit so the proposal can cite its steps. Poll proposal_status (or subscribe to memreview://proposals/{id}) to learn the decision.`
)

// New returns a server over b.
func New(b Service, opt Options) *Server {
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opt.Version == "" {
		opt.Version = "dev"
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	s := &Server{bank: b, opt: opt, log: opt.Logger, seen: map[*mcp.ServerSession]map[string]int{}, subscribed: map[string]subscription{},
		variants: map[string]*mcp.Server{}, now: opt.Now, limit: newLimiter(opt.Now)}
	s.agents, _ = b.(Agents)
	s.mcp = s.newMCP(true, !opt.ReadOnly, !opt.ReadOnly)
	return s
}

// newMCP is an SDK server offering the read tools and resources (read),
// the write tools (write) and the memory tool (memory: it reads and
// proposes over the whole bank).
func (s *Server) newMCP(read, write, memory bool) *mcp.Server {
	instr := instructions
	switch {
	case !write:
		instr = readInstructions + "\nThis server is read-only: it offers no way to change the bank."
	case !read:
		instr = "memreview serves a reviewed long-term memory bank. This credential may only propose: memory_propose queues a pending proposal that a person reviews; trajectory_submit stores the run it cites."
	}
	m := mcp.NewServer(&mcp.Implementation{Name: "memreview", Title: "memreview memory bank", Version: s.opt.Version}, &mcp.ServerOptions{
		Instructions:       instr,
		Logger:             s.opt.Logger,
		SubscribeHandler:   s.subscribe,
		UnsubscribeHandler: s.unsubscribe,
		CompletionHandler:  s.complete, // prompts.go
	})
	m.AddReceivingMiddleware(s.audit)
	s.addTools(m, read, write)
	if read && write && memory {
		s.addMemoryTool(m)
	}
	if read {
		s.addResources(m)
	}
	s.addPrompts(m, read, write)
	return m
}

// servers is every SDK server this Server runs (for notifications and
// the session list).
func (s *Server) servers() []*mcp.Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []*mcp.Server{s.mcp}
	for _, v := range s.variants {
		out = append(out, v)
	}
	return out
}

// MCP returns the SDK server, for connecting transports.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves one session over t (such as &mcp.StdioTransport{}) until the
// client disconnects or ctx ends, watching for decisions meanwhile.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if _, err := s.StartWatch(ctx); err != nil {
		return fmt.Errorf("serve: reading the bank's change sequence: %w", err)
	}
	return s.mcp.Run(ctx, t)
}

// clientName is the session's client name from initialize ("unknown" when
// the client gave none), made safe to keep in the bank.
func clientName(ss *mcp.ServerSession) string {
	name := ""
	if ss != nil {
		if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
			name = p.ClientInfo.Name
		}
	}
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, strings.TrimSpace(name))
	if r := []rune(name); len(r) > 64 {
		name = string(r[:64])
	}
	if name == "" {
		return "unknown"
	}
	return name
}

// maxSeen bounds the record versions remembered per session.
const maxSeen = 10000

// saw remembers that the session read version v of record id, so that a
// proposal it makes later names the versions it saw.
func (s *Server) saw(ss *mcp.ServerSession, id string, v int) {
	if ss == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.seen[ss]
	if m == nil {
		s.pruneLocked()
		m = map[string]int{}
		s.seen[ss] = m
	}
	if _, ok := m[id]; ok || len(m) < maxSeen {
		m[id] = v
	}
}

// seenVersion is the version of id the session read, or 0 (the current
// version) when it read none.
func (s *Server) seenVersion(ss *mcp.ServerSession, id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[ss][id]
}

// pruneLocked forgets sessions that have ended.
func (s *Server) pruneLocked() {
	live := map[*mcp.ServerSession]bool{}
	for _, m := range append([]*mcp.Server{s.mcp}, mapValues(s.variants)...) {
		for ss := range m.Sessions() {
			live[ss] = true
		}
	}
	for ss := range s.seen {
		if !live[ss] {
			delete(s.seen, ss)
		}
	}
}
