package mcpserver

// The audit of agents: every tools/call — who (the principal's name and
// the client's own), which tool, how many bytes of arguments, how it
// ended and how long it took — appended to the bank's agent audit. No
// argument or result text is kept.

import (
	"context"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/review"
)

// callState is where a tool handler says how a call ended beyond ok and
// error (refused, rate-limited), for the audit.
type callState struct{ status string }

type callStateKey struct{}

// mark notes in ctx's call state what err says of the call.
func mark(ctx context.Context, err error) {
	st, _ := ctx.Value(callStateKey{}).(*callState)
	if st == nil || err == nil {
		return
	}
	var rf *refusal
	var rl *rateLimited
	switch {
	case errors.As(err, &rl):
		st.status = review.AuditRateLimited
	case errors.As(err, &rf):
		st.status = review.AuditRefused
	}
}

// audit is the receiving middleware that audits tools/call.
func (s *Server) audit(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if !ok || s.agents == nil {
			return next(ctx, method, req)
		}
		st := &callState{}
		at, t0 := s.now(), time.Now()
		res, err := next(context.WithValue(ctx, callStateKey{}, st), method, req)
		e := review.AuditEntry{At: at, Agent: principalOf(call.Extra).Agent(), Client: clientName(call.Session), Status: review.AuditOK,
			Millis: time.Since(t0).Milliseconds()}
		if call.Params != nil {
			e.Tool, e.ArgBytes = call.Params.Name, len(call.Params.Arguments)
		}
		switch r, _ := res.(*mcp.CallToolResult); {
		case st.status != "":
			e.Status = st.status
		case err != nil:
			e.Status = "failed"
		case r != nil && r.IsError:
			e.Status = review.AuditError
		}
		if lerr := s.agents.LogAudit(e); lerr != nil {
			s.log.Warn("audit: the tool call was not logged", "tool", e.Tool, "agent", e.Agent, "err", lerr)
		}
		return res, err
	}
}
