package mcpserver

// OAuth for the HTTP server, as the MCP authorization spec describes a
// resource server: JWT access tokens from one issuer, checked against the
// issuer's JWKS (signature, an asymmetric algorithm — never "none" —,
// issuer, audience, expiry), their scopes mapped to memreview's. JWTs
// and JWKS are github.com/go-jose/go-jose/v4's (see the commit that added
// it for why); the protected-resource metadata document and the bearer
// middleware are the MCP go-sdk's (auth.go).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/memreview/memreview/review"
)

// OAuth verifies the access tokens of the issuer memreview.toml [oauth]
// names.
type OAuth struct {
	cfg  review.OAuthConfig
	http *http.Client
	now  func() time.Time

	mu      sync.Mutex
	keys    *jose.JSONWebKeySet
	fetched time.Time
}

// NewOAuth checks cfg (issuer, jwks_url and audience are needed) and
// returns its verifier; hc nil: a client with a 10 s timeout, now nil:
// time.Now.
func NewOAuth(cfg review.OAuthConfig, hc *http.Client, now func() time.Time) (*OAuth, error) {
	for _, f := range []struct{ name, v string }{{"issuer", cfg.Issuer}, {"jwks_url", cfg.JWKSURL}, {"audience", cfg.Audience}} {
		if f.v == "" {
			return nil, fmt.Errorf("memreview.toml [oauth]: %s is missing (issuer, jwks_url and audience are needed)", f.name)
		}
	}
	if u, err := url.Parse(cfg.JWKSURL); err != nil || u.Scheme != "https" && u.Scheme != "http" {
		return nil, fmt.Errorf("memreview.toml [oauth]: jwks_url %q is not an http(s) URL", cfg.JWKSURL)
	}
	if hc == nil {
		hc = &http.Client{Timeout: 10 * time.Second}
	}
	if now == nil {
		now = time.Now
	}
	return &OAuth{cfg: cfg, http: hc, now: now}, nil
}

// Resource is this server's resource identifier.
func (o *OAuth) Resource() string {
	if o.cfg.Resource != "" {
		return o.cfg.Resource
	}
	return o.cfg.Audience
}

// ScopesSupported are the token scopes that grant memreview's.
func (o *OAuth) ScopesSupported() []string {
	return []string{o.cfg.Scope(review.ScopeRead), o.cfg.Scope(review.ScopePropose)}
}

// Issuer is the authorization server.
func (o *OAuth) Issuer() string { return o.cfg.Issuer }

// errInsufficientScope: a valid token that grants none of memreview's
// scopes (403 insufficient_scope).
var errInsufficientScope = errors.New("the token grants none of this server's scopes")

// algorithms are the signatures accepted: asymmetric ones only, so an
// unsigned ("none") or HMAC token signed with a public key is refused.
var algorithms = []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA}

// leeway is the clock skew allowed on exp and nbf.
const leeway = 30 * time.Second

// Verify checks a JWT access token and returns its principal and expiry.
// A token that is not valid is an error saying why (401 invalid_token);
// one that grants no memreview scope is errInsufficientScope (403).
func (o *OAuth) Verify(ctx context.Context, raw string) (*Principal, time.Time, error) {
	tok, err := jwt.ParseSigned(raw, algorithms)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("not a signed JWT with an accepted algorithm (%v)", err)
	}
	if len(tok.Headers) != 1 {
		return nil, time.Time{}, errors.New("the JWT must carry exactly one signature")
	}
	key, err := o.key(ctx, tok.Headers[0].KeyID)
	if err != nil {
		return nil, time.Time{}, err
	}
	var std jwt.Claims
	var extra struct {
		Scope string   `json:"scope"`
		Scp   []string `json:"scp"`
	}
	if err := tok.Claims(key.Key, &std, &extra); err != nil {
		return nil, time.Time{}, fmt.Errorf("the signature does not verify with the issuer's key (%v)", err)
	}
	if std.Expiry == nil {
		return nil, time.Time{}, errors.New("the token has no exp")
	}
	if err := std.ValidateWithLeeway(jwt.Expected{Issuer: o.cfg.Issuer, AnyAudience: jwt.Audience{o.cfg.Audience}, Time: o.now()}, leeway); err != nil {
		switch {
		case errors.Is(err, jwt.ErrInvalidIssuer):
			return nil, time.Time{}, fmt.Errorf("the token's issuer is not %s", o.cfg.Issuer)
		case errors.Is(err, jwt.ErrInvalidAudience):
			return nil, time.Time{}, fmt.Errorf("the token is not for audience %s", o.cfg.Audience)
		case errors.Is(err, jwt.ErrExpired):
			return nil, time.Time{}, errors.New("the token has expired")
		}
		return nil, time.Time{}, fmt.Errorf("the token's claims do not hold (%v)", err)
	}
	if strings.TrimSpace(std.Subject) == "" {
		return nil, time.Time{}, errors.New("the token has no sub")
	}
	granted := append(strings.Fields(extra.Scope), extra.Scp...)
	var ours []string
	for _, sc := range review.Scopes {
		for _, g := range granted {
			if g == o.cfg.Scope(sc) {
				ours = append(ours, sc)
				break
			}
		}
	}
	if len(ours) == 0 {
		return nil, time.Time{}, errInsufficientScope
	}
	p := &Principal{Kind: KindOAuth, Name: subjectName(std.Subject), Scopes: ours, Envs: o.cfg.Envs, RatePerMin: o.cfg.RatePerMin}
	return p, std.Expiry.Time(), nil
}

// subjectName makes a token's subject a name for sources and the audit:
// "oauth-" and the subject's letters, digits, '.', '_' and '-' (others
// become '-'), at most 64 bytes.
func subjectName(sub string) string {
	n := "oauth-" + strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '-'
	}, sub)
	if len(n) > 64 {
		n = n[:64]
	}
	return n
}

// jwksRefresh is how often an unknown key id may fetch the JWKS again.
const jwksRefresh = 30 * time.Second

// key finds the issuer's signing key kid, fetching the JWKS on first use
// and again (at most every jwksRefresh) when kid is not in it: keys roll.
func (o *OAuth) key(ctx context.Context, kid string) (*jose.JSONWebKey, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for attempt := 0; attempt < 2; attempt++ {
		if o.keys != nil {
			var ks []jose.JSONWebKey
			if kid != "" {
				ks = o.keys.Key(kid)
			} else if len(o.keys.Keys) == 1 {
				ks = o.keys.Keys
			}
			for i := range ks {
				if ks[i].Use == "" || ks[i].Use == "sig" {
					return &ks[i], nil
				}
			}
		}
		if attempt == 1 || o.keys != nil && o.now().Sub(o.fetched) < jwksRefresh {
			break
		}
		if err := o.fetchLocked(ctx); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("the issuer's JWKS has no signing key %q", kid)
}

func (o *OAuth) fetchLocked(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.cfg.JWKSURL, nil)
	if err != nil {
		return err
	}
	resp, err := o.http.Do(req)
	if err != nil {
		return fmt.Errorf("the issuer's JWKS could not be fetched (%v)", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the issuer's JWKS answered %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(body, &set); err != nil {
		return fmt.Errorf("the issuer's JWKS is not a JWK set (%v)", err)
	}
	for i := range set.Keys {
		if !set.Keys[i].IsPublic() {
			return errors.New("the issuer's JWKS holds a private or symmetric key; it must publish public keys only")
		}
	}
	o.keys, o.fetched = &set, o.now()
	return nil
}
