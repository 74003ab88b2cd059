package probe

import (
	"context"
	"fmt"
	"time"
)

// Description tells a curator model (and help screens) what an
// environment is and how to probe it: its kind, where it points (no
// secrets), the probe grammar, and for mcp the tools a probe may call
// with their input schemas.
type Description struct {
	Name   string `json:"name"`
	Kind   Kind   `json:"kind"`
	Target string `json:"target"`
	Usage  string `json:"usage"`
	Tools  []Tool `json:"tools,omitempty"` // mcp: the callable tools only
	Error  string `json:"error,omitempty"` // mcp: why the tools could not be listed
}

// sqlUsage says what a sql probe is.
const sqlUsage = "one SQLite statement that only reads: SELECT, WITH … SELECT, or a PRAGMA that describes the schema"

// PostgresUsage and MCPUsage say what a postgres and an mcp probe are.
// They live here, not with the drivers, so that Usage answers for every
// kind in any program; the drivers quote them in their errors.
const (
	PostgresUsage = "one reading statement: SELECT, WITH … SELECT, VALUES, TABLE, EXPLAIN (without ANALYZE) or SHOW"
	MCPUsage      = `TOOL {json arguments}: one call of a callable tool, its arguments a JSON object checked against the tool's input schema (omit it for {})`
)

// Usage is the probe grammar of kind, as one line.
func Usage(kind Kind) string {
	switch kind {
	case KindSQL:
		return sqlUsage
	case KindFiles:
		return filesUsage
	case KindPostgres:
		return PostgresUsage
	case KindMCP:
		return MCPUsage
	}
	return "unknown kind " + string(kind)
}

// Describe describes env; for mcp it lists the tools (starting the
// server if it is not running), keeping only those a probe may call.
func (r *Runner) Describe(ctx context.Context, env Env) Description {
	d := Description{Name: env.Name, Kind: env.Kind, Target: env.Target(), Usage: Usage(env.Kind)}
	if env.Kind != KindMCP {
		return d
	}
	tools, err := r.Tools(ctx, env)
	if err != nil {
		d.Error = err.Error()
		return d
	}
	for _, t := range tools {
		if t.Callable {
			d.Tools = append(d.Tools, t)
		}
	}
	return d
}

// Health says whether an environment can be probed now, and why not.
type Health struct {
	Reachable bool   `json:"reachable"`
	Detail    string `json:"detail"` // "3 tables", "12 tools, 4 callable", or the reason it is not reachable
}

// Health checks env within timeout (a zero timeout means 5 s): the
// file or folder is there and of its kind; the database accepts the probe
// role (which runs the role check); the MCP server starts and lists its
// tools.
func (r *Runner) Health(ctx context.Context, env Env, timeout time.Duration) Health {
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := CheckEnv(env); err != nil {
		return Health{Detail: err.Error()}
	}
	switch env.Kind {
	case KindSQL, KindFiles:
		info, err := checkedInfo(env)
		if err != nil {
			return Health{Detail: err.Error()}
		}
		if env.Kind == KindSQL {
			return Health{Reachable: true, Detail: fmt.Sprintf("SQLite file, %d bytes", info.Size())}
		}
		return Health{Reachable: true, Detail: "folder"}
	case KindPostgres, KindMCP:
		c, err := r.conn(env)
		var detail string
		if err == nil {
			detail, err = c.Health(ctx)
		}
		if err != nil {
			return Health{Detail: describe(context.Background(), ctx, err, Limits{Timeout: timeout})}
		}
		return Health{Reachable: true, Detail: detail}
	}
	return Health{Detail: fmt.Sprintf("unknown kind %q", env.Kind)}
}

// Check is what `env add` runs before it saves env: the declaration is
// well formed (CheckEnv), and the environment is reachable now. For
// postgres that includes the role check, so a superuser URL is refused
// when it is added; for mcp the server must start and list its tools.
func (r *Runner) Check(ctx context.Context, env Env, timeout time.Duration) error {
	if err := CheckEnv(env); err != nil {
		return err
	}
	if env.Kind == KindSQL || env.Kind == KindFiles {
		_, err := checkedInfo(env)
		return err
	}
	h := r.Health(ctx, env, timeout)
	if !h.Reachable {
		return fmt.Errorf("%s: %s", env.Name, h.Detail)
	}
	return nil
}
