package mcpserver_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/mcpserver"
)

// issuer is an authorization server for tests: a signing key and its
// JWKS, served by the test.
type issuer struct {
	key  *ecdsa.PrivateKey
	jwks *httptest.Server
	url  string
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: string(jose.ES256), Use: "sig"}}}
	b, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	js := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}))
	t.Cleanup(js.Close)
	return &issuer{key: key, jwks: js, url: "https://auth.test.example"}
}

// token signs claims (iss, aud, exp, sub, scope set as given).
func (is *issuer) token(t *testing.T, claims map[string]any) string {
	t.Helper()
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: is.key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "k1"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := jwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const audience = "https://memreview.test.example/mcp"

func (is *issuer) claims(mod func(map[string]any)) map[string]any {
	c := map[string]any{"iss": is.url, "aud": audience, "sub": "agent/42", "exp": time.Now().Add(time.Hour).Unix(),
		"iat": time.Now().Unix(), "scope": "openid memreview:read memreview:propose"}
	if mod != nil {
		mod(c)
	}
	return c
}

func unsigned(claims map[string]any) string {
	enc := func(v any) string { b, _ := json.Marshal(v); return base64.RawURLEncoding.EncodeToString(b) }
	return enc(map[string]any{"alg": "none", "typ": "JWT"}) + "." + enc(claims) + "."
}

// OAuth: a valid JWT is served, with the subject as the agent's name;
// an expired, wrong-audience, wrong-issuer, unsigned (alg none) or
// scope-less JWT is refused with 401 (403 for the scope) and the
// challenge the MCP authorization spec asks for; the protected-resource
// metadata names the issuer.
func TestOAuthAccessTokens(t *testing.T) {
	t.Parallel()
	is := newIssuer(t)
	o, err := mcpserver.NewOAuth(review.OAuthConfig{Issuer: is.url, JWKSURL: is.jwks.URL, Audience: audience}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, mcpserver.Options{OAuth: o})
	url := serveHTTP(t, w.srv, "")
	base := strings.TrimSuffix(url, mcpserver.Path)
	meta := "https://memreview.test.example" + mcpserver.MetadataPath

	for _, c := range []struct {
		name, token string
		status      int
		challenge   []string
	}{
		{"no token", "", 401, []string{`resource_metadata="` + meta + `"`}},
		{"expired", is.token(t, is.claims(func(c map[string]any) { c["exp"] = time.Now().Add(-time.Hour).Unix() })), 401, []string{`error="invalid_token"`, "expired", `resource_metadata="` + meta + `"`}},
		{"wrong audience", is.token(t, is.claims(func(c map[string]any) { c["aud"] = "https://other.example/mcp" })), 401, []string{`error="invalid_token"`, "audience"}},
		{"wrong issuer", is.token(t, is.claims(func(c map[string]any) { c["iss"] = "https://evil.example" })), 401, []string{`error="invalid_token"`, "issuer"}},
		{"unsigned", unsigned(is.claims(nil)), 401, []string{`error="invalid_token"`}},
		{"no memreview scope", is.token(t, is.claims(func(c map[string]any) { c["scope"] = "openid profile" })), 403, []string{`error="insufficient_scope"`, `scope="memreview:read memreview:propose"`, `resource_metadata="` + meta + `"`}},
		{"no exp", is.token(t, is.claims(func(c map[string]any) { delete(c, "exp") })), 401, []string{`error="invalid_token"`}},
	} {
		hdr := map[string]string{}
		if c.token != "" {
			hdr["Authorization"] = "Bearer " + c.token
		}
		code, h, body := postH(t, url, initBody, hdr)
		ch := h.Get("WWW-Authenticate")
		if code != c.status || strings.Contains(body, `"result"`) {
			t.Errorf("%s: status %d (%q), want %d", c.name, code, body, c.status)
		}
		if !strings.HasPrefix(ch, "Bearer ") {
			t.Errorf("%s: WWW-Authenticate %q is not a Bearer challenge", c.name, ch)
		}
		for _, want := range c.challenge {
			if !strings.Contains(ch, want) {
				t.Errorf("%s: WWW-Authenticate %q lacks %s", c.name, ch, want)
			}
		}
		if c.name == "no token" && strings.Contains(ch, "error=") {
			t.Errorf("no token: the challenge has an error code: %q", ch)
		}
	}

	good := is.token(t, is.claims(nil))
	cs, err := httpClient(t, context.Background(), url, good, "oauth client")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var prop mcpserver.ProposeOut
	mustCall(t, cs, mcpserver.ToolPropose, createArgs("Proposed with an OAuth token."), &prop)
	if p, err := w.store.Proposal(prop.ProposalID); err != nil || p.Source != "mcp:oauth-agent-42" {
		t.Fatalf("OAuth proposal source: %+v %v", p, err)
	}
	readOnly := is.token(t, is.claims(func(c map[string]any) { c["scope"] = "memreview:read" }))
	ro, err := httpClient(t, context.Background(), url, readOnly, "reader")
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if tools, err := ro.ListTools(context.Background(), nil); err != nil || len(tools.Tools) != 3 {
		t.Fatalf("a read-scoped token is offered %d tools (%v), want the 3 read tools", len(tools.Tools), err)
	}

	res, err := http.Get(base + mcpserver.MetadataPath)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var md struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported"`
	}
	if err := json.NewDecoder(res.Body).Decode(&md); err != nil || md.Resource != audience || len(md.AuthorizationServers) != 1 ||
		md.AuthorizationServers[0] != is.url || strings.Join(md.ScopesSupported, " ") != "memreview:read memreview:propose" {
		t.Fatalf("metadata %+v %v", md, err)
	}
}
