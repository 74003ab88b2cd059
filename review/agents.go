package review

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The scopes an agent's credential may hold.
const (
	ScopeRead    = "read"    // memory_search, memory_read, proposal_status, the resources
	ScopePropose = "propose" // memory_propose, trajectory_submit
)

// Scopes lists every scope.
var Scopes = []string{ScopeRead, ScopePropose}

// AgentToken is one agent's credential for the MCP server: a name, the
// hash of its secret (the secret itself is shown once and never stored),
// what it may do and how often.
type AgentToken struct {
	Name string `json:"name"`
	// Hash is the hex SHA-256 of the token (tokens are 32 random bytes,
	// so a fast hash is as good as a slow one).
	Hash   string   `json:"hash"`
	Scopes []string `json:"scopes"`
	// Envs and Tags limit the records the agent sees and proposes: a
	// record of another environment (or with none of Tags, when set) does
	// not exist for it. Empty: every record.
	Envs []string `json:"envs,omitempty"`
	Tags []string `json:"tags,omitempty"`
	// RatePerMin caps the agent's proposals and submitted runs in any
	// minute; 0: no cap.
	RatePerMin int       `json:"rate_per_min,omitempty"`
	Created    time.Time `json:"created"`
	Revoked    time.Time `json:"revoked,omitzero"`
}

// Active reports whether the token has not been revoked.
func (t *AgentToken) Active() bool { return t.Revoked.IsZero() }

// Can reports whether the token holds scope.
func (t *AgentToken) Can(scope string) bool { return slices.Contains(t.Scopes, scope) }

// CheckAgentName says what is wrong with a token's name: it becomes the
// proposal source mcp:NAME and an id part, so it is 1 to 64 of
// [A-Za-z0-9._-].
func CheckAgentName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("the name must be 1 to 64 characters")
	}
	if strings.ContainsFunc(name, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		return fmt.Errorf("the name %q may hold only letters, digits, '.', '_' and '-'", name)
	}
	return nil
}

// AuditEntry is one MCP tool call by an agent: who, which tool, how big
// its arguments were, how it ended and when. It holds no argument or
// result text, so no secret an agent sent reaches it.
type AuditEntry struct {
	Seq      int64     `json:"seq,omitempty"`
	At       time.Time `json:"at"`
	Agent    string    `json:"agent"`            // the token's name; "" for the unnamed token or a stdio session
	Client   string    `json:"client,omitempty"` // the client's own name, as text
	Tool     string    `json:"tool"`
	ArgBytes int       `json:"arg_bytes"`
	// Status is ok, error (a tool error the agent read), refused (out of
	// scope or without the scope), rate-limited or failed (the server's
	// own failure).
	Status string `json:"status"`
	Millis int64  `json:"ms"`
}

// The statuses of an audit entry.
const (
	AuditOK          = "ok"
	AuditError       = "error"
	AuditRefused     = "refused"
	AuditRateLimited = "rate-limited"
)

// AuditFilter selects audit entries: an agent ("" all), entries at or
// after Since (zero: all), the newest Limit of them (0: all), oldest
// first.
type AuditFilter struct {
	Agent string
	Since time.Time
	Limit int
}

// DefaultAuditCap is how many audit entries a bank keeps: past it the
// oldest are dropped as new ones come (about 20 MB of entries).
const DefaultAuditCap = 100_000

// OAuthConfig holds memreview.toml [oauth]: the authorization server
// whose JWT access tokens the HTTP MCP server accepts, as the MCP
// authorization spec describes a resource server.
type OAuthConfig struct {
	Issuer   string `toml:"issuer,omitempty"`   // the iss every token must carry
	JWKSURL  string `toml:"jwks_url,omitempty"` // where the issuer's signing keys are
	Audience string `toml:"audience,omitempty"` // the aud every token must carry (this server's resource URL)
	// Resource is this server's URL as clients reach it (the metadata
	// document's resource); "": Audience.
	Resource string `toml:"resource,omitempty"`
	// ReadScope and ProposeScope are the token scopes that grant
	// memreview's read and propose ("": "memreview:read",
	// "memreview:propose").
	ReadScope    string `toml:"read_scope,omitempty"`
	ProposeScope string `toml:"propose_scope,omitempty"`
	// Envs limits what every OAuth agent sees and proposes, as a token's
	// envs do; RatePerMin caps each subject's proposals.
	Envs       []string `toml:"envs,omitempty"`
	RatePerMin int      `toml:"rate_per_min,omitempty"`
}

// Enabled reports whether OAuth is configured.
func (o OAuthConfig) Enabled() bool { return o.Issuer != "" || o.JWKSURL != "" }

// Scope names with their defaults.
func (o OAuthConfig) Scope(ours string) string {
	switch ours {
	case ScopeRead:
		if o.ReadScope != "" {
			return o.ReadScope
		}
		return "memreview:read"
	case ScopePropose:
		if o.ProposeScope != "" {
			return o.ProposeScope
		}
		return "memreview:propose"
	}
	return ""
}
