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

	"github.com/memreview/memreview/review/app"
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
			"An agent never writes a record: memory_propose and the memory tool queue pending proposals for a person to decide.\n" +
			"Over HTTP, every request must carry a bearer token as soon as one exists: the --token-file token\n" +
			"(one unnamed credential with every scope), an agent token ('memreview token add'), or an OAuth\n" +
			"access token from the issuer of [oauth] in memreview.toml. A stdio server needs none.",
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
			svc, err := c.service()
			if err != nil {
				return err
			}
			opt, creds, err := serveAuth(svc, addr != "", token)
			if err != nil {
				return err
			}
			if addr != "" {
				if addr, err = mcpserver.ListenAddr(addr, creds != ""); err != nil {
					return err
				}
			}
			opt.ReadOnly = readOnly
			opt.Logger = slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			srv := mcpserver.New(mcpserver.FromService(svc), opt)
			if addr == "" {
				err := srv.Run(c.ctx, mcpserver.StdioTransport(c.stdin, c.rawOut))
				if errors.Is(err, context.Canceled) || c.ctx.Err() != nil {
					return nil
				}
				return err
			}
			return serveHTTP(c, srv, addr, token, creds)
		}}
}

// serveAuth reads the bank's credentials for an HTTP server: the OAuth
// issuer of [oauth] and whether agent tokens exist. creds says in words
// what a request must carry ("" when nothing is required).
func serveAuth(svc *app.Service, http bool, shared string) (mcpserver.Options, string, error) {
	var opt mcpserver.Options
	if !http {
		return opt, "", nil
	}
	cfg, err := svc.Config()
	if err != nil {
		return opt, "", err
	}
	var creds []string
	if shared != "" {
		creds = append(creds, "the shared bearer token")
	}
	if has, err := svc.HasTokens(); err != nil {
		return opt, "", err
	} else if has {
		creds = append(creds, "an agent token")
	}
	if cfg.OAuth.Enabled() {
		if opt.OAuth, err = mcpserver.NewOAuth(cfg.OAuth, nil, nil); err != nil {
			return opt, "", err
		}
		creds = append(creds, "an OAuth access token from "+cfg.OAuth.Issuer)
	}
	return opt, strings.Join(creds, " or "), nil
}

func serveHTTP(c *call, srv *mcpserver.Server, addr, token, creds string) error {
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
	auth := "no token; one is required as soon as an agent token exists"
	if creds != "" {
		auth = "requires " + creds
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
