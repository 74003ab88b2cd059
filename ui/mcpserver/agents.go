package mcpserver

import "github.com/memreview/memreview/review"

// Agents is what the server needs of a bank that keeps agents'
// credentials and the audit of their tool calls; FromService's has
// it. A Service without it serves no agent tokens and audits nothing.
type Agents interface {
	// Authenticate returns the active credential the token opens (an
	// error wrapping app.ErrBadToken when none), reading the bank each
	// time: a revocation holds from the next request.
	Authenticate(token string) (*review.AgentToken, error)
	// HasTokens reports whether any credential is active.
	HasTokens() (bool, error)
	// LogAudit appends tool calls to the audit.
	LogAudit(entries ...review.AuditEntry) error
}

func (b appService) Authenticate(token string) (*review.AgentToken, error) {
	return b.s.Authenticate(token)
}
func (b appService) HasTokens() (bool, error)                    { return b.s.HasTokens() }
func (b appService) LogAudit(entries ...review.AuditEntry) error { return b.s.LogAudit(entries...) }
