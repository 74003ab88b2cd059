package probe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/memreview/memreview/probe/mcpenv"
	"github.com/memreview/memreview/probe/pg"
)

// Runner runs probes of every kind and holds what the stateful kinds
// need between probes: a small connection pool per postgres environment
// and one session per mcp environment (a stdio server process, or an HTTP
// session). Both are made on first use, keyed by the environment's whole
// declaration (a changed declaration gets new ones), and closed by Close.
// A Runner is safe for concurrent use; a program holds one for its
// lifetime and closes it on exit.
type Runner struct {
	opt runnerOptions

	mu     sync.Mutex
	closed bool
	pools  map[string]pgEntry  // by environment name
	mcps   map[string]mcpEntry // by environment name
}

// pgEntry and mcpEntry hold what was made for one declaration (key).
type pgEntry struct {
	key  string
	pool *pg.Pool
}

type mcpEntry struct {
	key    string
	client *mcpenv.Client
}

type runnerOptions struct {
	// mcpStartTimeout bounds how long an MCP server may take to start and
	// answer initialize (20 s: npx may install the server first).
	mcpStartTimeout time.Duration
	// mcpMaxMessage bounds one JSON-RPC message from an MCP server (16
	// MiB); a larger one closes the session with an error.
	mcpMaxMessage int
	mcpStderr     int
}

// NewRunner returns a Runner with no pools or sessions yet.
func NewRunner() *Runner {
	o := runnerOptions{mcpStartTimeout: 20 * time.Second, mcpMaxMessage: 16 << 20, mcpStderr: 8 << 10}
	return &Runner{opt: o, pools: map[string]pgEntry{}, mcps: map[string]mcpEntry{}}
}

// Close closes every pool and session (stopping stdio servers). Probes
// after Close fail with a sentence saying so.
func (r *Runner) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	var errs []error
	for k, e := range r.pools {
		e.pool.Close()
		delete(r.pools, k)
	}
	for k, e := range r.mcps {
		errs = append(errs, e.client.Close())
		delete(r.mcps, k)
	}
	return errors.Join(errs...)
}

var errClosed = errors.New("the probe runner is closed (memreview is exiting)")

// envKey identifies an environment's declaration: a new declaration under
// the same name gets a new pool or session.
func envKey(e Env) string {
	b, _ := json.Marshal(e)
	return string(b)
}

// pool returns env's pool, making it on first use.
func (r *Runner) pool(env Env) (*pg.Pool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errClosed
	}
	k := envKey(env)
	e, ok := r.pools[env.Name]
	if ok && e.key == k {
		return e.pool, nil
	}
	p, err := pg.Open(pg.Target{URL: env.URL, PasswordEnv: env.PasswordEnv})
	if err != nil {
		return nil, err
	}
	if ok { // re-declared: the old pool goes
		e.pool.Close()
	}
	r.pools[env.Name] = pgEntry{k, p}
	return p, nil
}

// mcp returns env's MCP client, making it on first use (it connects when
// first asked).
func (r *Runner) mcp(env Env) (*mcpenv.Client, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errClosed
	}
	k := envKey(env)
	e, ok := r.mcps[env.Name]
	if ok && e.key == k {
		return e.client, nil
	}
	cfg := mcpenv.Config{
		Name: env.Name, Command: env.Command, Env: serverEnviron(env.PassEnv), URL: env.URL,
		TokenFile: env.TokenFile, Allow: env.Allow,
		StartTimeout: r.opt.mcpStartTimeout, MaxMessage: r.opt.mcpMaxMessage, StderrTail: r.opt.mcpStderr,
	}
	c, err := mcpenv.New(cfg)
	if err != nil {
		return nil, err
	}
	if ok {
		e.client.Close()
	}
	r.mcps[env.Name] = mcpEntry{k, c}
	return c, nil
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

// Run runs one probe against env, as the package's Run does, using and
// keeping the runner's pools and sessions. It never returns a Go error: a
// refusal or failure is a sentence in Result.Error.
func (r *Runner) Run(ctx context.Context, env Env, input string, lim Limits) Result {
	return run(ctx, r, env, input, lim)
}

// Fingerprint is the package's Fingerprint for every kind: for postgres
// the schema the probe role sees, for mcp the tool list with schemas.
func (r *Runner) Fingerprint(ctx context.Context, env Env) (string, error) {
	h := sha256.New()
	var err error
	switch env.Kind {
	case KindPostgres:
		var p *pg.Pool
		if p, err = r.pool(env); err == nil {
			err = p.SchemaHash(ctx, h)
		}
	case KindMCP:
		var c *mcpenv.Client
		if c, err = r.mcp(env); err == nil {
			err = c.Fingerprint(ctx, h)
		}
	default:
		return Fingerprint(ctx, env)
	}
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:fingerprintLen], nil
}

// runPostgres classifies input (refusing everything but one reading
// statement before it reaches the server) and runs it on env's pool.
func (r *Runner) runPostgres(ctx context.Context, env Env, input string, lim Limits, res *Result) error {
	st, err := pg.Classify(input)
	if err != nil {
		return err
	}
	p, err := r.pool(env)
	if err != nil {
		return err
	}
	out, err := p.Query(ctx, st, pg.Limits{Timeout: lim.Timeout, MaxRows: lim.MaxRows, MaxBytes: lim.MaxBytes})
	if err != nil {
		return err
	}
	res.Columns, res.Rows, res.Truncated = out.Columns, out.Rows, out.Truncated
	return nil
}

// runMCP calls one tool of env's server.
func (r *Runner) runMCP(ctx context.Context, env Env, input string, lim Limits, res *Result) error {
	c, err := r.mcp(env)
	if err != nil {
		return err
	}
	out, err := c.Call(ctx, input, mcpenv.Limits{MaxRows: lim.MaxRows, MaxBytes: lim.MaxBytes})
	if err != nil {
		return err
	}
	res.Columns, res.Rows, res.Text, res.Truncated, res.Note = out.Columns, out.Rows, out.Text, out.Truncated, out.Note
	return nil
}

// Tools lists an mcp environment's tools with their annotations, input
// schemas and whether each is callable as a probe (and why, or why not),
// for `env tools`.
func (r *Runner) Tools(ctx context.Context, env Env) ([]Tool, error) {
	if env.Kind != KindMCP {
		return nil, fmt.Errorf("environment %q is a %s environment; only mcp environments have tools", env.Name, env.Kind)
	}
	c, err := r.mcp(env)
	if err != nil {
		return nil, err
	}
	return c.Tools(ctx)
}

// Tool is one tool of an MCP server as `env tools` and Describe show it.
type Tool = mcpenv.Tool

// context budget of the stateful kinds beyond the probe's own time limit:
// the server's statement_timeout fires first and keeps the connection.
const serverGrace = 2 * time.Second

func withTimeout(ctx context.Context, env Env, lim Limits) (context.Context, context.CancelFunc) {
	d := lim.Timeout
	if env.Kind == KindPostgres {
		d += serverGrace
	}
	return context.WithTimeout(ctx, d)
}
