package mcpserver

// What a principal may see and propose: every tool, resource and
// subscription asks here, so an agent scoped to env shop never sees or
// proposes to docs — a record outside its scope does not exist for it.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/review"
)

// withScope guards a tool handler: a principal without scope is refused
// (the tool is not even offered to it over HTTP, see auth.go), and the
// call's refusal or rate limit is noted for the audit.
func withScope[In, Out any](scope string, h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		tool := ""
		if req.Params != nil {
			tool = req.Params.Name
		}
		if err := need(principalOf(req.Extra), scope, tool); err != nil {
			mark(ctx, err)
			var zero Out
			return nil, zero, err
		}
		res, out, err := h(ctx, req, in)
		mark(ctx, err)
		return res, out, err
	}
}

// agentLabel is who a proposal or retrieval is from: the credential's
// name, or, for the local user and the shared token, the client's own
// name (as text: it may hold spaces and slashes; ids made of it go
// through idSafe).
func agentLabel(p *Principal, ss *mcp.ServerSession) string {
	if p.Name != "" {
		return p.Name
	}
	return clientName(ss)
}

// noRecord is the error for a record that does not exist — or that the
// caller may not see, which it cannot tell apart.
func noRecord(id string) error {
	return fmt.Errorf("field \"id\": there is no record %q in the bank; use memory_search to find record ids", id)
}

// searchScope narrows memory_search's env and tags to p's scope: an env
// outside it is refused; no env is p's only one (an agent with several
// names one); tags are p's when none are given, and must be p's.
func searchScope(p *Principal, env string, tags []string) (string, []string, error) {
	if len(p.Envs) > 0 {
		switch {
		case env != "" && !slices.Contains(p.Envs, env):
			return "", nil, &refusal{fmt.Sprintf("field \"env\": this credential may search only %s", p.envsText())}
		case env == "" && len(p.Envs) == 1:
			env = p.Envs[0]
		case env == "":
			return "", nil, &refusal{fmt.Sprintf("field \"env\": this credential may search %s; name one", p.envsText())}
		}
	}
	if len(p.Tags) > 0 {
		if len(tags) == 0 {
			tags = p.Tags
		}
		for _, t := range tags {
			if !slices.Contains(p.Tags, t) {
				return "", nil, &refusal{fmt.Sprintf("field \"tags\": %q is outside this credential's tags (%s)", t, strings.Join(p.Tags, ", "))}
			}
		}
	}
	return env, tags, nil
}

// proposeScope refuses a memory_propose outside p's scope: a record for
// another environment (or, for a credential with several, none named), a
// check probing another, tags outside p's, a target p cannot see (which
// is "no such record", as for memory_read). A credential with one
// environment proposes to it when the record names none.
func (s *Server) proposeScope(ctx context.Context, p *Principal, in *ProposeIn) error {
	if !p.scoped() {
		return nil
	}
	if r := in.Record; r != nil {
		if len(p.Envs) > 0 {
			switch {
			case r.Scope.Env == "" && len(p.Envs) == 1:
				r.Scope.Env = p.Envs[0]
			case r.Scope.Env == "" || !slices.Contains(p.Envs, r.Scope.Env):
				return &refusal{fmt.Sprintf("field \"record.scope.env\": this credential may propose only to %s", p.envsText())}
			}
			for i, c := range r.Checks {
				if !slices.Contains(p.Envs, c.Env) {
					return &refusal{fmt.Sprintf("field \"record.checks[%d].env\": this credential may probe only %s", i, p.envsText())}
				}
			}
		}
		if len(p.Tags) > 0 {
			if len(r.Scope.Tags) == 0 {
				return &refusal{fmt.Sprintf("field \"record.scope.tags\": this credential proposes only records tagged %s; give one", strings.Join(p.Tags, ", "))}
			}
			for _, t := range r.Scope.Tags {
				if !slices.Contains(p.Tags, t) {
					return &refusal{fmt.Sprintf("field \"record.scope.tags\": %q is outside this credential's tags (%s)", t, strings.Join(p.Tags, ", "))}
				}
			}
		}
	}
	for i, id := range in.Targets {
		r, err := s.bank.Record(ctx, id)
		if err != nil || !p.Sees(r) {
			return &refusal{fmt.Sprintf("field \"targets[%d]\": there is no record %q in the bank; use memory_search to find record ids", i, id)}
		}
	}
	return nil
}

// proposalVisible reports whether p may see a proposal: everything it
// touches (its record, its targets) is within p's scope.
func (s *Server) proposalVisible(ctx context.Context, p *Principal, prop *review.Proposal) bool {
	if !p.scoped() {
		return true
	}
	if prop.Record != nil && !p.Sees(prop.Record) {
		return false
	}
	for _, t := range prop.Targets {
		r, err := s.bank.Record(ctx, t.ID)
		if err != nil || !p.Sees(r) {
			return false
		}
	}
	return true
}

// uriVisible reports whether p may read (and subscribe to) a resource.
func (s *Server) uriVisible(ctx context.Context, p *Principal, uri string) bool {
	if !p.Can(review.ScopeRead) {
		return false
	}
	if !p.scoped() {
		return true
	}
	switch {
	case strings.HasPrefix(uri, RecordURI):
		r, err := s.bank.Record(ctx, strings.TrimPrefix(uri, RecordURI))
		return err == nil && p.Sees(r)
	case strings.HasPrefix(uri, ProposalURI):
		prop, _, err := s.bank.ProposalStatus(ctx, strings.TrimPrefix(uri, ProposalURI))
		return err == nil && s.proposalVisible(ctx, p, prop)
	}
	return false
}

func mapValues[K comparable, V any](m map[K]V) []V {
	out := make([]V, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
