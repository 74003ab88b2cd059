package probe

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Kind names an environment kind.
type Kind string

// The environment kinds memreview can probe.
const (
	KindSQL      Kind = "sql"      // a SQLite file
	KindFiles    Kind = "files"    // a folder
	KindPostgres Kind = "postgres" // a PostgreSQL database
	KindMCP      Kind = "mcp"      // another MCP server's read-only tools
)

// Kinds lists every kind, in the order help texts show them.
var Kinds = []Kind{KindSQL, KindFiles, KindPostgres, KindMCP}

// Env is one environment declared in a bank's memreview.toml (under
// [[env]]). Which fields apply depends on Kind:
//
//	sql, files  Path (absolute or relative to the bank), Symlink
//	postgres    URL (no password in it), PasswordEnv
//	mcp         Command (stdio) or URL (streamable HTTP) with TokenFile;
//	            Allow, PassEnv
//
// For example:
//
//	[[env]]
//	name = "warehouse"
//	kind = "postgres"
//	url = "postgres://memreview_probe@db.internal:5432/warehouse?sslmode=require"
//	password_env = "WAREHOUSE_PGPASSWORD"
//
//	[[env]]
//	name = "docs"
//	kind = "mcp"
//	command = ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/srv/docs"]
//	allow = ["search_files"]
type Env struct {
	Name string `toml:"name" json:"name"`
	Kind Kind   `toml:"kind" json:"kind"`
	Path string `toml:"path,omitempty" json:"path,omitempty"`
	// Symlink is set when the operator added Path as a symbolic link; only
	// then is a link there followed. A root that becomes a link later is
	// refused.
	Symlink bool `toml:"symlink,omitempty" json:"symlink,omitempty"`
	// URL is a postgres environment's database URL (postgres://ROLE@HOST:PORT/DB,
	// never with a password), or an mcp environment's streamable HTTP
	// endpoint.
	URL string `toml:"url,omitempty" json:"url,omitempty"`
	// PasswordEnv names the environment variable holding a postgres
	// password; without it the password comes from ~/.pgpass (PGPASSFILE)
	// or PGPASSWORD, as libpq finds it. memreview never stores or prints it.
	PasswordEnv string `toml:"password_env,omitempty" json:"password_env,omitempty"`
	// Command is the program and arguments of a stdio MCP server, which
	// memreview starts, keeps one session with, restarts if it dies and
	// stops on exit.
	Command []string `toml:"command,omitempty" json:"command,omitempty"`
	// TokenFile is a file holding the bearer token of an HTTP MCP server
	// (absolute or relative to the bank).
	TokenFile string `toml:"token_file,omitempty" json:"token_file,omitempty"`
	// Allow names MCP tools that may be called although the server does not
	// annotate them read-only; their results say so.
	Allow []string `toml:"allow,omitempty" json:"allow,omitempty"`
	// PassEnv names environment variables given to a stdio MCP server
	// besides PATH, HOME, USER, LANG, LC_ALL, TMPDIR and TZ; nothing else
	// of memreview's environment (API keys, tokens) reaches it.
	PassEnv []string `toml:"pass_env,omitempty" json:"pass_env,omitempty"`
}

// Target is where env points, for lists and messages, without secrets:
// the path, the database and host, the command or the URL.
func (e Env) Target() string {
	switch e.Kind {
	case KindPostgres:
		if where, err := CheckPostgresURL(e.URL); where != "" || err == nil {
			return where
		}
		return "(a URL that cannot be read)"
	case KindMCP:
		if len(e.Command) > 0 {
			return "stdio: " + strings.Join(e.Command, " ")
		}
		return e.URL
	}
	return e.Path
}

// CheckEnv checks env's declaration without reaching it: the fields its
// kind needs are there, the others are empty, and no secret is written in
// it. `env add` and the config reader call it; it names the field.
func CheckEnv(e Env) error {
	set := map[string]bool{
		"path": e.Path != "", "symlink": e.Symlink, "url": e.URL != "", "password_env": e.PasswordEnv != "",
		"command": len(e.Command) > 0, "token_file": e.TokenFile != "", "allow": len(e.Allow) > 0, "pass_env": len(e.PassEnv) > 0,
	}
	var allowed []string
	switch e.Kind {
	case KindSQL, KindFiles:
		if e.Path == "" {
			return fmt.Errorf("environment %q (%s) needs path", e.Name, e.Kind)
		}
		allowed = []string{"path", "symlink"}
	case KindPostgres:
		if e.URL == "" {
			return fmt.Errorf("environment %q (postgres) needs url", e.Name)
		}
		if _, err := CheckPostgresURL(e.URL); err != nil {
			return fmt.Errorf("environment %q: url: %w", e.Name, err)
		}
		allowed = []string{"url", "password_env"}
	case KindMCP:
		if (len(e.Command) > 0) == (e.URL != "") {
			return fmt.Errorf("environment %q (mcp) needs either command (a stdio server) or url (a streamable HTTP server), not both", e.Name)
		}
		if len(e.Command) > 0 && strings.TrimSpace(e.Command[0]) == "" {
			return fmt.Errorf("environment %q: command: the program name is empty", e.Name)
		}
		if len(e.Command) > 0 && e.TokenFile != "" {
			return fmt.Errorf("environment %q: token_file is for an HTTP server (url), not a stdio command", e.Name)
		}
		allowed = []string{"command", "url", "token_file", "allow", "pass_env"}
	default:
		return fmt.Errorf("environment %q has unknown kind %q; use %s", e.Name, e.Kind, kindList())
	}
	for _, f := range []string{"path", "symlink", "url", "password_env", "command", "token_file", "allow", "pass_env"} {
		if set[f] && !slices.Contains(allowed, f) {
			return fmt.Errorf("environment %q (%s) does not take %s", e.Name, e.Kind, f)
		}
	}
	return nil
}

// CheckPostgresURL checks that u is a postgres URL that holds no password,
// and returns where it points (database and host) for messages. It reads
// the URL only; probe/pg opens it.
func CheckPostgresURL(u string) (where string, err error) {
	pu, err := url.Parse(u)
	if err != nil || (pu.Scheme != "postgres" && pu.Scheme != "postgresql") {
		return "", errors.New("the postgres URL must look like postgres://ROLE@HOST:PORT/DATABASE (a keyword=value string is not accepted)")
	}
	where = describeURL(pu)
	if _, has := pu.User.Password(); has {
		return where, fmt.Errorf("the URL for %s holds a password in clear; remove it and name an environment variable that holds it (password_env), or put it in ~/.pgpass", where)
	}
	for k := range pu.Query() {
		if strings.EqualFold(k, "password") || strings.EqualFold(k, "passfile") {
			return where, fmt.Errorf("the URL for %s sets %s; remove it and use password_env or ~/.pgpass", where, k)
		}
	}
	return where, nil
}

func describeURL(pu *url.URL) string {
	db := strings.TrimPrefix(pu.Path, "/")
	host := pu.Hostname()
	if h := pu.Query().Get("host"); h != "" {
		host = h
	}
	if db == "" {
		db = "(default)"
	}
	if host == "" {
		host = "localhost"
	}
	return fmt.Sprintf("database %q on host %q", db, host)
}

func kindList() string {
	var s []string
	for _, k := range Kinds {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}

// SplitCommand splits an --mcp-command string into program and
// arguments like a shell would ('single' and "double" quotes, backslash),
// without running a shell.
func SplitCommand(s string) ([]string, error) {
	w, err := splitWords(s)
	if err != nil {
		return nil, fmt.Errorf("the MCP command %q: %v", s, err)
	}
	if len(w) == 0 {
		return nil, errors.New("the MCP command is empty")
	}
	return w, nil
}
