package mcpserver

// Who may use the HTTP server. A request carries a bearer token that is
// one of: the shared --token-file token (one unnamed credential with
// every scope), one of the bank's agent tokens (memreview token add), or
// an OAuth JWT access token ([oauth] in memreview.toml). As soon as any
// of these exists every request must carry one; with none (a loopback
// address only, see ListenAddr) requests need none. Refusals are 401
// with the WWW-Authenticate challenge of RFC 6750 and the MCP
// authorization spec (resource_metadata naming the RFC 9728 document),
// or 403 insufficient_scope. An accepted token reaches the handlers
// through the go-sdk's bearer middleware as req.Extra.TokenInfo, which
// also binds each session to the principal that opened it.

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/memreview/memreview/review"
)

// MetadataPath is where the protected-resource metadata document (RFC
// 9728) is served: the well-known prefix, then the resource's path.
const MetadataPath = "/.well-known/oauth-protected-resource" + Path

// far is the expiry of credentials that have none of their own (they
// hold until revoked).
var far = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// authFailure is why a request is refused: its status and the challenge's
// error code and description.
type authFailure struct {
	status int
	code   string // "" (no credentials), invalid_token, insufficient_scope
	desc   string
}

// authenticate is the HTTP middleware in front of the MCP handler.
func (s *Server) authenticate(shared string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, has := bearerToken(r)
		if !has {
			required, err := s.authRequired(shared)
			if err != nil {
				http.Error(w, "memreview: cannot read the bank's credentials", http.StatusInternalServerError)
				return
			}
			if !required {
				next.ServeHTTP(w, r)
				return
			}
			why := "no bearer token"
			if r.Header.Get("Authorization") != "" {
				why = "an Authorization header that is not a bearer token"
			}
			s.refuse(w, r, authFailure{status: http.StatusUnauthorized, desc: why})
			return
		}
		p, exp, fail := s.verify(r.Context(), raw, shared)
		if fail != nil {
			s.refuse(w, r, *fail)
			return
		}
		ti := p.tokenInfo(exp)
		verifier := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) { return ti, nil }
		auth.RequireBearerToken(verifier, nil)(next).ServeHTTP(w, r)
	})
}

// authRequired reports whether any credential exists, so that every
// request must carry one.
func (s *Server) authRequired(shared string) (bool, error) {
	if shared != "" || s.opt.OAuth != nil {
		return true, nil
	}
	if s.agents == nil {
		return false, nil
	}
	return s.agents.HasTokens()
}

// bearerToken is the request's bearer token, if it has one.
func bearerToken(r *http.Request) (string, bool) {
	f := strings.Fields(r.Header.Get("Authorization"))
	if len(f) != 2 || !strings.EqualFold(f[0], "bearer") {
		return "", false
	}
	return f[1], true
}

// verify finds the principal raw authenticates: the shared token, an
// agent token, or an OAuth JWT.
func (s *Server) verify(ctx context.Context, raw, shared string) (*Principal, time.Time, *authFailure) {
	invalid := func(desc string) (*Principal, time.Time, *authFailure) {
		return nil, time.Time{}, &authFailure{status: http.StatusUnauthorized, code: "invalid_token", desc: desc}
	}
	if shared != "" && subtle.ConstantTimeCompare([]byte(raw), []byte(shared)) == 1 {
		return full(KindShared), far, nil
	}
	if s.agents != nil && strings.HasPrefix(raw, "mrv_") {
		tok, err := s.agents.Authenticate(raw)
		if err != nil {
			return invalid("unknown or revoked token")
		}
		if len(tok.Scopes) == 0 {
			return nil, time.Time{}, &authFailure{status: http.StatusForbidden, code: "insufficient_scope", desc: "the token holds no scope"}
		}
		return &Principal{Kind: KindToken, Name: tok.Name, Scopes: tok.Scopes, Envs: tok.Envs, Tags: tok.Tags, RatePerMin: tok.RatePerMin}, far, nil
	}
	if s.opt.OAuth != nil && strings.Count(raw, ".") == 2 {
		p, exp, err := s.opt.OAuth.Verify(ctx, raw)
		if errors.Is(err, errInsufficientScope) {
			return nil, time.Time{}, &authFailure{status: http.StatusForbidden, code: "insufficient_scope", desc: err.Error()}
		}
		if err != nil {
			return invalid(err.Error())
		}
		return p, exp, nil
	}
	if shared != "" && s.agents == nil && s.opt.OAuth == nil {
		return invalid("wrong bearer token")
	}
	return invalid("wrong bearer token (not the shared token, an agent token or a JWT from the issuer)")
}

// refuse answers 401 or 403 with the challenge and logs it (the token is
// never logged).
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, f authFailure) {
	params := []string{`realm="memreview"`}
	if f.code != "" {
		params = append(params, fmt.Sprintf("error=%q", f.code), fmt.Sprintf("error_description=%q", strings.ReplaceAll(f.desc, `"`, "'")))
	}
	if f.code == "insufficient_scope" || f.status == http.StatusUnauthorized && s.opt.OAuth != nil {
		params = append(params, fmt.Sprintf("scope=%q", strings.Join(s.scopesSupported(), " ")))
	}
	if s.opt.OAuth != nil {
		params = append(params, fmt.Sprintf("resource_metadata=%q", s.metadataURL(r)))
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	if f.status == http.StatusForbidden {
		s.log.Warn("refused request without the scope it needs", "remote", r.RemoteAddr, "method", r.Method, "path", r.URL.Path, "why", f.desc)
	} else {
		s.log.Warn("refused unauthenticated request", "remote", r.RemoteAddr, "method", r.Method, "path", r.URL.Path, "why", f.desc)
	}
	http.Error(w, f.desc, f.status)
}

func (s *Server) scopesSupported() []string {
	if s.opt.OAuth != nil {
		return s.opt.OAuth.ScopesSupported()
	}
	return review.Scopes
}

// metadataURL is where this server's protected-resource metadata is: at
// the configured resource's origin, or the request's.
func (s *Server) metadataURL(r *http.Request) string {
	if u, err := url.Parse(s.opt.OAuth.Resource()); err == nil && u.Scheme != "" && u.Host != "" {
		return u.Scheme + "://" + u.Host + MetadataPath
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + MetadataPath
}

// metadata serves the RFC 9728 document (the go-sdk's handler).
func (s *Server) metadata() http.Handler {
	o := s.opt.OAuth
	return auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               o.Resource(),
		AuthorizationServers:   []string{o.Issuer()},
		ScopesSupported:        o.ScopesSupported(),
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "memreview memory bank",
	})
}

// serverFor is the SDK server a new HTTP session of the request's
// principal gets: the tools its scopes allow, no others.
func (s *Server) serverFor(r *http.Request) *mcp.Server {
	p := principalOf(&mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context())})
	read, write := p.Can(review.ScopeRead), p.Can(review.ScopePropose) && !s.opt.ReadOnly
	memory := read && write && !p.scoped() // memoryRefusal
	if read && write == !s.opt.ReadOnly && memory == !s.opt.ReadOnly {
		return s.mcp
	}
	key := fmt.Sprintf("read=%v,write=%v,memory=%v", read, write, memory)
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.variants[key]; ok {
		return m
	}
	m := s.newMCP(read, write, memory)
	s.variants[key] = m
	return m
}
