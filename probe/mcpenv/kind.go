package mcpenv

import (
	"context"
	"fmt"
	"hash"
	"os"
	"time"

	"github.com/memreview/memreview/probe"
)

func init() {
	probe.Register(probe.KindMCP, probe.Driver{Open: openConn})
}

// The bounds of a probe.Runner's sessions.
const (
	// startTimeout bounds how long an MCP server may take to start and
	// answer initialize (20 s: npx may install the server first).
	startTimeout = 20 * time.Second
	// maxMessage bounds one JSON-RPC message from an MCP server (16 MiB);
	// a larger one closes the session with an error.
	maxMessage = 16 << 20
	// stderrTail is how much of a stdio server's stderr is kept for errors.
	stderrTail = 8 << 10
)

// conn is an mcp environment's probe.Conn: its Client.
type conn struct{ c *Client }

func openConn(env probe.Env) (probe.Conn, error) {
	c, err := New(Config{
		Name: env.Name, Command: env.Command, Env: serverEnviron(env.PassEnv), URL: env.URL,
		TokenFile: env.TokenFile, Allow: env.Allow,
		StartTimeout: startTimeout, MaxMessage: maxMessage, StderrTail: stderrTail,
	})
	if err != nil {
		return nil, err
	}
	return conn{c}, nil
}

// baseEnviron is what a stdio MCP server gets of memreview's environment
// without being told more (Env.PassEnv).
var baseEnviron = []string{"PATH", "HOME", "USER", "LANG", "LC_ALL", "TMPDIR", "TZ"}

func serverEnviron(pass []string) []string {
	var env []string
	for _, k := range append(append([]string(nil), baseEnviron...), pass...) {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// Run calls one tool of the server.
func (c conn) Run(ctx context.Context, input string, lim probe.Limits, res *probe.Result) error {
	out, err := c.c.Call(ctx, input, Limits{MaxRows: lim.MaxRows, MaxBytes: lim.MaxBytes})
	if err != nil {
		return err
	}
	res.Columns, res.Rows, res.Text, res.Truncated, res.Note = out.Columns, out.Rows, out.Text, out.Truncated, out.Note
	return nil
}

func (c conn) Fingerprint(ctx context.Context, h hash.Hash) error { return c.c.Fingerprint(ctx, h) }

// Health starts the server (if it is not running) and counts its tools.
func (c conn) Health(ctx context.Context) (string, error) {
	tools, err := c.c.Tools(ctx)
	if err != nil {
		return "", err
	}
	n := 0
	for _, t := range tools {
		if t.Callable {
			n++
		}
	}
	return fmt.Sprintf("%d tools, %d callable", len(tools), n), nil
}

// Tools lists the server's tools as probe shows them.
func (c conn) Tools(ctx context.Context) ([]probe.Tool, error) {
	tools, err := c.c.Tools(ctx)
	if err != nil || tools == nil {
		return nil, err
	}
	out := make([]probe.Tool, len(tools))
	for i, t := range tools {
		out[i] = t.Tool
	}
	return out, nil
}

func (c conn) Close() error { return c.c.Close() }
