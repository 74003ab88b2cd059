package probe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"sync"
	"time"
)

// Runner runs probes of every kind and holds what the stateful kinds
// need between probes: a small connection pool per postgres environment
// and one session per mcp environment (a stdio server process, or an HTTP
// session). Both are made on first use, keyed by the environment's whole
// declaration (a changed declaration gets new ones), and closed by Close.
// A Runner is safe for concurrent use; a program holds one for its
// lifetime and closes it on exit.
//
// The stateful kinds' drivers register themselves (Register) when their
// packages are linked in: probe/pg for postgres, probe/mcpenv for mcp. The
// program's service (review/app) imports both; a kind whose driver is not
// linked in fails each probe with a sentence saying so.
type Runner struct {
	mu     sync.Mutex
	closed bool
	conns  map[string]connEntry // by environment name
}

// connEntry holds what was opened for one declaration (key).
type connEntry struct {
	key  string
	conn Conn
}

// Conn is what a stateful kind's driver holds open for one environment
// between probes: a postgres pool, or an MCP session.
type Conn interface {
	// Run runs one probe, filling res's output fields (Columns, Rows,
	// Text, Truncated, Note). An error is a refusal or failure.
	Run(ctx context.Context, input string, lim Limits, res *Result) error
	// Fingerprint writes what the environment's probes depend on into h.
	Fingerprint(ctx context.Context, h hash.Hash) error
	// Health reaches the environment now and says what it found ("12
	// tools, 4 callable"), or why it cannot be probed.
	Health(ctx context.Context) (detail string, err error)
	// Close closes the pool or session.
	Close() error
}

// ToolConn is a Conn whose environment has tools (mcp).
type ToolConn interface {
	Conn
	Tools(ctx context.Context) ([]Tool, error)
}

// Driver is a stateful kind's driver, as it registers itself.
type Driver struct {
	// Refuse, when set, checks a probe's input before anything is opened,
	// so a refused request never connects (postgres refuses every
	// statement that is not one reading statement).
	Refuse func(input string) error
	// Open makes env's Conn; it may connect lazily, on the first probe.
	Open func(env Env) (Conn, error)
}

var (
	driversMu sync.RWMutex
	drivers   = map[Kind]Driver{}
)

// Register makes d the driver of kind, a stateful kind (postgres or mcp);
// the driver's package calls it from an init function. It panics on a
// kind that is not stateful, or on a second driver for one kind: both are
// programming errors, found when the program starts.
func Register(kind Kind, d Driver) {
	if !kind.stateful() {
		panic(fmt.Sprintf("probe: Register(%q): only postgres and mcp have drivers", kind))
	}
	if d.Open == nil {
		panic(fmt.Sprintf("probe: Register(%q): the driver has no Open", kind))
	}
	driversMu.Lock()
	defer driversMu.Unlock()
	if _, dup := drivers[kind]; dup {
		panic(fmt.Sprintf("probe: Register(%q) called twice", kind))
	}
	drivers[kind] = d
}

// stateful reports whether kind keeps a connection or session between
// probes, and so has a Driver (postgres, mcp).
func (k Kind) stateful() bool { return k == KindPostgres || k == KindMCP }

// driverOf returns kind's driver, or an error saying that this program was
// built without it.
func driverOf(kind Kind) (Driver, error) {
	driversMu.RLock()
	defer driversMu.RUnlock()
	d, ok := drivers[kind]
	if !ok {
		return Driver{}, fmt.Errorf("%s probes are not built into this program: nothing linked in their driver (%s)", kind, driverPackage[kind])
	}
	return d, nil
}

// driverPackage names the package that registers each stateful kind, for
// the error of a program built without it.
var driverPackage = map[Kind]string{
	KindPostgres: "github.com/memreview/memreview/probe/pg",
	KindMCP:      "github.com/memreview/memreview/probe/mcpenv",
}

// NewRunner returns a Runner with no pools or sessions yet.
func NewRunner() *Runner {
	return &Runner{conns: map[string]connEntry{}}
}

// Close closes every pool and session (stopping stdio servers). Probes
// after Close fail with a sentence saying so.
func (r *Runner) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	var errs []error
	for k, e := range r.conns {
		errs = append(errs, e.conn.Close())
		delete(r.conns, k)
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

// conn returns env's Conn, opening it on first use (and again when env
// was re-declared, closing the old one).
func (r *Runner) conn(env Env) (Conn, error) {
	d, err := driverOf(env.Kind)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, errClosed
	}
	k := envKey(env)
	e, ok := r.conns[env.Name]
	if ok && e.key == k {
		return e.conn, nil
	}
	c, err := d.Open(env)
	if err != nil {
		return nil, err
	}
	if ok { // re-declared: the old pool or session goes
		e.conn.Close()
	}
	r.conns[env.Name] = connEntry{k, c}
	return c, nil
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
	if !env.Kind.stateful() {
		return Fingerprint(ctx, env)
	}
	c, err := r.conn(env)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if err := c.Fingerprint(ctx, h); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:fingerprintLen], nil
}

// runStateful runs a postgres or mcp probe on env's Conn, refusing what
// the driver refuses before the Conn is opened.
func (r *Runner) runStateful(ctx context.Context, env Env, input string, lim Limits, res *Result) error {
	d, err := driverOf(env.Kind)
	if err != nil {
		return err
	}
	if d.Refuse != nil {
		if err := d.Refuse(input); err != nil {
			return err
		}
	}
	c, err := r.conn(env)
	if err != nil {
		return err
	}
	return c.Run(ctx, input, lim, res)
}

// Tools lists an mcp environment's tools with their annotations, input
// schemas and whether each is callable as a probe (and why, or why not),
// for `env tools`.
func (r *Runner) Tools(ctx context.Context, env Env) ([]Tool, error) {
	if env.Kind != KindMCP {
		return nil, fmt.Errorf("environment %q is a %s environment; only mcp environments have tools", env.Name, env.Kind)
	}
	c, err := r.conn(env)
	if err != nil {
		return nil, err
	}
	tc, ok := c.(ToolConn)
	if !ok {
		return nil, fmt.Errorf("environment %q: the mcp driver lists no tools", env.Name)
	}
	return tc.Tools(ctx)
}

// Tool is one tool of an MCP server as `env tools` and Describe show it.
type Tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	Annotated   bool            `json:"annotated"`   // the server sent annotations
	ReadOnly    bool            `json:"read_only"`   // readOnlyHint
	Destructive bool            `json:"destructive"` // destructiveHint (MCP's default: true unless read-only)
	Idempotent  bool            `json:"idempotent"`
	OpenWorld   bool            `json:"open_world"`
	Callable    bool            `json:"callable"`
	AllowListed bool            `json:"allow_listed,omitempty"` // callable only through the allow-list
	Why         string          `json:"why"`                    // why it is callable, or why not
}

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
