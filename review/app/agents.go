package app

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/memreview/memreview/review"
)

// Agents' credentials and their audit: every agent that reaches the bank
// over HTTP has a token of its own (review.AgentToken), with scopes, the
// environments and tags it may see and propose to, and a rate limit; the
// bank keeps only each token's hash. Every MCP tool call is audited.

// TokenPrefix opens every agent token, so a leaked one is recognisable.
const TokenPrefix = "mrv_"

// TokenRequest is what AddToken makes.
type TokenRequest struct {
	Name       string
	Scopes     []string // nil: read and propose
	Envs, Tags []string
	RatePerMin int
}

// ErrBadToken marks a token the bank does not know or has revoked.
var ErrBadToken = errors.New("unknown or revoked token")

// AddToken makes a credential: 32 random bytes, shown once (the returned
// token) and stored only as its SHA-256.
func (s *Service) AddToken(req TokenRequest) (string, *review.AgentToken, error) {
	if err := review.CheckAgentName(req.Name); err != nil {
		return "", nil, fmt.Errorf("token add: %w", err)
	}
	scopes := req.Scopes
	if scopes == nil {
		scopes = review.Scopes
	}
	for _, sc := range scopes {
		if !slices.Contains(review.Scopes, sc) {
			return "", nil, fmt.Errorf("token add: scope %q is not %s", sc, strings.Join(review.Scopes, " or "))
		}
	}
	if len(scopes) == 0 {
		return "", nil, errors.New("token add: a token needs a scope (read, propose)")
	}
	for _, e := range req.Envs {
		if err := review.CheckEnvName(e); err != nil {
			return "", nil, fmt.Errorf("token add: --env: %w", err)
		}
	}
	if req.RatePerMin < 0 {
		return "", nil, errors.New("token add: --rate must be N/min with N > 0")
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", nil, err
	}
	token := TokenPrefix + base64.RawURLEncoding.EncodeToString(raw[:])
	tok := review.AgentToken{Name: req.Name, Hash: TokenHash(token), Scopes: slices.Clone(scopes), Envs: req.Envs, Tags: req.Tags, RatePerMin: req.RatePerMin}
	if err := s.b.AddToken(tok); err != nil {
		return "", nil, err
	}
	stored, err := s.b.TokenByHash(tok.Hash)
	if err != nil {
		return "", nil, err
	}
	return token, stored, nil
}

// TokenHash is how the bank keeps a token: hex SHA-256.
func TokenHash(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// Tokens lists the bank's credentials (hashes, never tokens).
func (s *Service) Tokens() ([]review.AgentToken, error) { return s.b.Tokens() }

// RevokeToken revokes a credential; a server refuses its next request.
func (s *Service) RevokeToken(name string) (*review.AgentToken, error) { return s.b.RevokeToken(name) }

// HasTokens reports whether the bank holds any active credential.
func (s *Service) HasTokens() (bool, error) {
	n, err := s.b.ActiveTokens()
	return n > 0, err
}

// Authenticate returns the active credential token opens; ErrBadToken
// when it opens none. It reads the bank each time, so a revocation holds
// from the next request on, in every process.
func (s *Service) Authenticate(token string) (*review.AgentToken, error) {
	if !strings.HasPrefix(token, TokenPrefix) {
		return nil, ErrBadToken
	}
	t, err := s.b.TokenByHash(TokenHash(token))
	if errors.Is(err, review.ErrNotFound) {
		return nil, ErrBadToken
	}
	if err != nil {
		return nil, err
	}
	if !t.Active() {
		return nil, ErrBadToken
	}
	return t, nil
}

// LogAudit appends agents' tool calls to the audit, which keeps the
// newest review.DefaultAuditCap entries. Each call returns once its
// entries are committed; calls that arrive while a commit is in flight
// share the next one (as the retrieval log does), so many agents at once
// do not queue on the bank's write lock one by one.
func (s *Service) LogAudit(entries ...review.AuditEntry) error { return s.alog.log(s.b, entries) }

// auditLog group-commits the audit.
type auditLog struct {
	mu       sync.Mutex
	pending  []pendingAudit
	flushing bool
}

type pendingAudit struct {
	es   []review.AuditEntry
	done chan error
}

func (l *auditLog) log(b Store, es []review.AuditEntry) error {
	done := make(chan error, 1)
	l.mu.Lock()
	l.pending = append(l.pending, pendingAudit{es, done})
	if l.flushing {
		l.mu.Unlock()
		return <-done
	}
	l.flushing = true
	for len(l.pending) > 0 {
		batch := l.pending
		l.pending = nil
		l.mu.Unlock()
		var all []review.AuditEntry
		for _, p := range batch {
			all = append(all, p.es...)
		}
		err := b.AppendAudit(all, review.DefaultAuditCap)
		for _, p := range batch {
			p.done <- err
		}
		l.mu.Lock()
	}
	l.flushing = false
	l.mu.Unlock()
	return <-done
}

// Audit reads the audit.
func (s *Service) Audit(f review.AuditFilter) ([]review.AuditEntry, error) { return s.b.Audit(f) }
