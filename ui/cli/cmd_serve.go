package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/memreview/memreview/ui/mcpserver"
)

// serveCommand serves the bank to task agents and outside curators over
// MCP (ui/mcpserver), on stdio or streamable HTTP.
func serveCommand() *command {
	var addr, tokenFile string
	var readOnly bool
	return &command{name: "serve", args: "",
		summary: "Serve the bank to agents over MCP, on stdio or (--http) streamable HTTP at http://ADDR/mcp.",
		help: "Tools: memory_search, memory_read, proposal_status (read) and memory_propose, trajectory_submit,\n" +
			"and memory, a backend for Claude's memory tool (also POST /memory with --http).\n" +
			"An agent never writes a record: memory_propose and the memory tool queue pending proposals for a person to decide.",
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&addr, "http", "", "serve streamable HTTP on ADDR (HOST:PORT or PORT; host defaults to 127.0.0.1) instead of stdio")
			fs.StringVar(&tokenFile, "token-file", "", "file holding the bearer token HTTP clients must send (default $MEMREVIEW_TOKEN)")
			fs.BoolVar(&readOnly, "read-only", false, "offer only the read tools (memory_search, memory_read, proposal_status)")
		},
		run: func(c *call, args []string) error {
			if err := noArgs("serve", args); err != nil {
				return err
			}
			token, err := serveToken(tokenFile)
			if err != nil {
				return err
			}
			if addr != "" {
				if addr, err = mcpserver.ListenAddr(addr, token != ""); err != nil {
					return err
				}
			}
			svc, err := c.open()
			if err != nil {
				return err
			}
			defer svc.Close()
			logger := slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			srv := mcpserver.New(mcpserver.FromService(svc), mcpserver.Options{ReadOnly: readOnly, Logger: logger})
			if addr == "" {
				err := srv.Run(c.ctx, mcpserver.StdioTransport(c.stdin, c.rawOut))
				if errors.Is(err, context.Canceled) || c.ctx.Err() != nil {
					return nil
				}
				return err
			}
			return serveHTTP(c, srv, addr, token)
		}}
}

func serveHTTP(c *call, srv *mcpserver.Server, addr, token string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	if _, err := srv.StartWatch(ctx); err != nil {
		ln.Close()
		return fmt.Errorf("serve: reading the bank's change sequence: %w", err)
	}
	hs := &http.Server{Handler: srv.Handler(token), ReadHeaderTimeout: 10 * time.Second}
	auth := "no token"
	if token != "" {
		auth = "bearer token required"
	}
	fmt.Fprintf(c.stderr, "memreview: serving MCP on http://%s%s (%s)\n", ln.Addr(), mcpserver.Path, auth)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-c.ctx.Done():
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		hs.Shutdown(sctx)
		return nil
	}
}

// serveToken reads the bearer token from file, else $MEMREVIEW_TOKEN.
func serveToken(file string) (string, error) {
	if file == "" {
		return strings.TrimSpace(os.Getenv("MEMREVIEW_TOKEN")), nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("serve: read the token: %w", err)
	}
	t := strings.TrimSpace(string(data))
	if t == "" || strings.ContainsAny(t, " \t\r\n") {
		return "", fmt.Errorf("serve: %s must hold one token on one line", file)
	}
	return t, nil
}
