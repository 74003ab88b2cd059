package mcpserver

// Who is calling: the principal a request authenticated as (a bank token,
// an OAuth access token, the shared --token-file token, or the local user
// of a stdio server), and what it may see and do.

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/review"
)

// The kinds of principal.
const (
	KindLocal  = "local"  // a stdio session: the local user's own
	KindShared = "shared" // the single --token-file token
	KindToken  = "token"  // one of the bank's agent tokens
	KindOAuth  = "oauth"  // an OAuth access token
)

// Principal is the authenticated caller of one request.
type Principal struct {
	Kind string
	// Name is the token's name or the OAuth subject; "" for the local
	// user and the shared token, whose proposals are sourced by client
	// name as before.
	Name   string
	Scopes []string // review.ScopeRead, review.ScopePropose
	// Envs and Tags limit the records it sees and proposes (empty: all).
	Envs, Tags []string
	RatePerMin int
}

// full is the principal of a session without credentials of its own.
func full(kind string) *Principal { return &Principal{Kind: kind, Scopes: review.Scopes} }

// Can reports whether p holds scope.
func (p *Principal) Can(scope string) bool { return slices.Contains(p.Scopes, scope) }

// scoped reports whether p is limited to some environments or tags.
func (p *Principal) scoped() bool { return len(p.Envs) > 0 || len(p.Tags) > 0 }

// Agent is the name the audit and rate limiter know p by.
func (p *Principal) Agent() string { return p.Name }

// EnvAllowed reports whether p may see and propose records of env (""
// is every environment's: records that name none are seen by all).
func (p *Principal) EnvAllowed(env string) bool {
	return len(p.Envs) == 0 || env == "" || slices.Contains(p.Envs, env)
}

// Sees reports whether r is within p's scope: its environment is one of
// p's (or none), and, when p has tags, it has one of them (or none).
func (p *Principal) Sees(r *review.Record) bool {
	if !p.EnvAllowed(r.Scope.Env) {
		return false
	}
	if len(p.Tags) == 0 || len(r.Scope.Tags) == 0 {
		return true
	}
	for _, t := range r.Scope.Tags {
		if slices.Contains(p.Tags, t) {
			return true
		}
	}
	return false
}

// tokenInfo wraps p for the SDK's bearer-token middleware, which hands it
// to every handler as req.Extra.TokenInfo; UserID binds each HTTP session
// to the principal that opened it (another's token cannot use it).
func (p *Principal) tokenInfo(exp time.Time) *auth.TokenInfo {
	return &auth.TokenInfo{Scopes: p.Scopes, UserID: p.Kind + ":" + p.Name, Expiration: exp, Extra: map[string]any{principalKey: p}}
}

const principalKey = "memreview.principal"

// principalOf is a request's principal: the one its bearer token
// authenticated, else the local user's (stdio, in-process).
func principalOf(extra *mcp.RequestExtra) *Principal {
	if extra != nil && extra.TokenInfo != nil {
		if p, ok := extra.TokenInfo.Extra[principalKey].(*Principal); ok {
			return p
		}
	}
	return full(KindLocal)
}

// need refuses a call p's scopes do not allow.
func need(p *Principal, scope, tool string) error {
	if p.Can(scope) {
		return nil
	}
	return &refusal{fmt.Sprintf("%s needs the %s scope, which this credential does not have", tool, scope)}
}

// refusal is a tool error for a call outside the caller's scope: the
// audit marks it refused.
type refusal struct{ msg string }

func (r *refusal) Error() string { return r.msg }

// envsText names p's environments for an error.
func (p *Principal) envsText() string { return strings.Join(p.Envs, ", ") }
