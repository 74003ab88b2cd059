package mcpserver

// Streamable HTTP: the handler at /mcp, the bearer-token check in front of
// it, and the rule that a non-loopback address needs a token.

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where the streamable-HTTP endpoint lives.
const Path = "/mcp"

// MaxRequestBytes caps one HTTP request body; a larger one gets 413.
const MaxRequestBytes = 4 << 20

// Handler returns the streamable-HTTP handler serving Path. With the
// shared token, agent tokens in the bank or OAuth configured, every
// request must carry a bearer token one of them accepts (auth.go); one
// that does not gets 401 (403 without the scope), a WWW-Authenticate
// challenge and a log line, and never reaches the server. Each session
// is offered the tools its credential's scopes allow. With OAuth the
// protected-resource metadata is served at MetadataPath. The SDK's
// DNS-rebinding protection stays on: a request that arrives on a loopback
// address with a non-loopback Host header gets 403.
func (s *Server) Handler(token string) http.Handler {
	h := mcp.NewStreamableHTTPHandler(s.serverFor,
		&mcp.StreamableHTTPOptions{Logger: s.log, MaxRequestBodyBytes: MaxRequestBytes, SessionTimeout: 30 * time.Minute})
	mux := http.NewServeMux()
	mux.Handle(Path, s.authenticate(token, h))
	mux.Handle(MemoryPath, s.authenticate(token, s.memoryHTTP()))
	if s.opt.OAuth != nil {
		mux.Handle(MetadataPath, s.metadata())
		mux.Handle("/.well-known/oauth-protected-resource", s.metadata())
	}
	return mux
}

// ListenAddr completes addr (host defaults to 127.0.0.1) and refuses a
// non-loopback host when there is no token.
func ListenAddr(addr string, hasToken bool) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		if !strings.Contains(addr, ":") { // a bare port
			host, port, err = "", addr, nil
		} else {
			return "", fmt.Errorf("--http %q: want HOST:PORT or PORT: %w", addr, err)
		}
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if !loopback(host) && !hasToken {
		return "", errors.New("--http " + addr + " is not a loopback address: set a bearer token (--token-file FILE or $MEMREVIEW_TOKEN) before serving the bank beyond this machine")
	}
	return net.JoinHostPort(host, port), nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
