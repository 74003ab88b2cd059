package mcpserver

// Who a call comes from, beyond the client's name: a random token for
// each session (the retrieval log keeps it, so a task_id links only to a
// run the same session submits), and the ids of runs that bring none.

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionTokens gives each live session a random token.
type sessionTokens struct {
	mu sync.Mutex
	m  map[*mcp.ServerSession]string
}

// sessionToken is ss's token ("" for no session), made on first use.
func (s *Server) sessionToken(ss *mcp.ServerSession) string {
	if ss == nil {
		return ""
	}
	t := &s.tokens
	t.mu.Lock()
	defer t.mu.Unlock()
	if tok, ok := t.m[ss]; ok {
		return tok
	}
	if t.m == nil {
		t.m = map[*mcp.ServerSession]string{}
	}
	if len(t.m) >= 64 { // forget sessions that have ended
		live := map[*mcp.ServerSession]bool{}
		for x := range s.mcp.Sessions() {
			live[x] = true
		}
		for x := range t.m {
			if !live[x] {
				delete(t.m, x)
			}
		}
	}
	tok := "mcp-session-" + randomHex(16)
	t.m[ss] = tok
	return tok
}

// runID seeds the id of a run an agent submits without one:
// mcp-CLIENT-TIME-RANDOM, 64 random bits, so that agents of one client
// name in separate processes, in the same second, never draw one id.
func runID(client string) string {
	return "mcp-" + idSafe(client) + "-" + time.Now().UTC().Format("20060102T150405Z") + "-" + randomHex(8)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}
