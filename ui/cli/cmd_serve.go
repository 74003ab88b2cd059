// The serve command: the bank as an MCP server (ui/mcpserver) for task
// agents and outside curators, over stdio or streamable HTTP.

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

var serveCommand = &command{name: "serve", args: "", help: `Serve the bank to agents over MCP (stdio by default; --http for streamable HTTP at http://ADDR/mcp).
Tools: memory_search, memory_read, proposal_status (read) and memory_propose, trajectory_submit.
An agent never writes a record: memory_propose queues a pending proposal for a person to decide.`,
	flags: func(fs *flag.FlagSet) {
		fs.String("http", "", "serve streamable HTTP on ADDR (HOST:PORT or PORT; host defaults to 127.0.0.1) instead of stdio")
		fs.String("token-file", "", "file holding the bearer token HTTP clients must send (default $MEMREVIEW_TOKEN)")
		fs.Bool("read-only", false, "offer only the read tools (memory_search, memory_read, proposal_status)")
	},
	run: cmdServe}

func cmdServe(a *cmdline, fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return usagef("serve takes no arguments (got %q)", fs.Arg(0))
	}
	addr := flagString(fs, "http")
	token, err := serveToken(flagString(fs, "token-file"))
	if err != nil {
		return err
	}
	if addr != "" {
		if addr, err = mcpserver.ListenAddr(addr, token != ""); err != nil {
			return err
		}
	}
	svc, err := a.open()
	if err != nil {
		return err
	}
	defer svc.Close()
	logger := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv := mcpserver.New(mcpserver.FromService(svc), mcpserver.Options{
		ReadOnly: fs.Lookup("read-only").Value.(flag.Getter).Get().(bool), Logger: logger})
	if addr == "" {
		err := srv.Run(a.ctx, mcpserver.StdioTransport(a.stdin, a.stdout))
		if errors.Is(err, context.Canceled) || a.ctx.Err() != nil {
			return nil
		}
		return err
	}
	return serveHTTP(a, srv, addr, token)
}

func serveHTTP(a *cmdline, srv *mcpserver.Server, addr, token string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	ctx, cancel := context.WithCancel(a.ctx)
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
	fmt.Fprintf(a.stderr, "memreview: serving MCP on http://%s%s (%s)\n", ln.Addr(), mcpserver.Path, auth)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-a.ctx.Done():
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
