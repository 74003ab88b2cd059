package mcpserver

// Streamable HTTP: the handler at /mcp, the bearer-token check in front of
// it, and the rule that a non-loopback address needs a token.

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where the streamable-HTTP endpoint lives.
const Path = "/mcp"

// MaxRequestBytes caps one HTTP request body; a larger one gets 413.
const MaxRequestBytes = 4 << 20

// Handler returns the streamable-HTTP handler serving Path. With a token,
// every request must carry "Authorization: Bearer TOKEN"; one that does not
// gets 401 and a log line, and never reaches the server. The SDK's
// DNS-rebinding protection stays on: a request that arrives on a loopback
// address with a non-loopback Host header gets 403.
func (s *Server) Handler(token string) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Logger: s.log, MaxRequestBodyBytes: MaxRequestBytes, SessionTimeout: 30 * time.Minute})
	mux := http.NewServeMux()
	mux.Handle(Path, h)
	mux.Handle(MemoryPath, s.memoryHTTP())
	if token == "" {
		return mux
	}
	verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
	guarded := auth.RequireBearerToken(verify, nil)(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w}
		guarded.ServeHTTP(sw, r)
		if sw.code == http.StatusUnauthorized {
			why := "wrong bearer token"
			if !strings.HasPrefix(strings.ToLower(r.Header.Get("Authorization")), "bearer ") {
				why = "no bearer token"
			}
			s.log.Warn("refused unauthenticated request", "remote", r.RemoteAddr, "method", r.Method, "path", r.URL.Path, "why", why)
		}
	})
}

// statusWriter remembers the status code written.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Flush passes flushes through, for event streams.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

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
