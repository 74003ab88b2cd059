package cli

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/printable"
)

// envCommand manages the environments (probe targets) in memreview.toml.
func envCommand() *command {
	return &command{name: "env", args: "add|list|tools|rm",
		summary: "Manage the bank's environments, the probe targets in memreview.toml.",
		subs:    []*command{envAddCommand(), envListCommand(), envToolsCommand(), envRmCommand()}}
}

// envAddFlags are env add's flags: one target flag says the kind, the
// others belong to it.
type envAddFlags struct {
	sql, files, postgres, passwordEnv, mcpCommand, mcpURL, tokenFile string
	allow, passEnv                                                   listFlag
}

func envAddCommand() *command {
	var f envAddFlags
	return &command{name: "add", args: "NAME --sql FILE | --files DIR | --postgres URL | --mcp-command 'CMD ARGS…' | --mcp-url URL",
		summary: "Add an environment: a SQLite database (--sql), a folder of files and documents (--files), a PostgreSQL database (--postgres) or an MCP server's read-only tools (--mcp-command, --mcp-url).",
		help: "A postgres URL names a role that can only read (a superuser, or a role that may read or write server files or run programs, is refused) and holds no password:\n" +
			"the password comes from --password-env VAR or ~/.pgpass and is never stored in memreview.toml nor printed.\n" +
			"An MCP server's tools are callable as probes when the server annotates them read-only (and not destructive), or when --allow names them;\n" +
			"the annotation is the server's word, and the allow-list is yours. The database or server must answer before the environment is saved.",
		interspersed: true,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&f.sql, "sql", "", "a SQLite database file")
			fs.StringVar(&f.files, "files", "", "a folder (text, CSV, PDF, DOCX, XLSX, PPTX)")
			fs.StringVar(&f.postgres, "postgres", "", "a PostgreSQL URL, postgres://ROLE@HOST:PORT/DATABASE, without a password")
			fs.StringVar(&f.passwordEnv, "password-env", "", "with --postgres: the environment variable holding the password")
			fs.StringVar(&f.mcpCommand, "mcp-command", "", "a stdio MCP server: its program and arguments, quoted as one word")
			fs.StringVar(&f.mcpURL, "mcp-url", "", "a streamable HTTP MCP server's URL")
			fs.StringVar(&f.tokenFile, "mcp-token-file", "", "with --mcp-url: a file holding the bearer token")
			fs.Var(&f.allow, "allow", "with an MCP server: tools a probe may call though the server does not annotate them read-only (comma-separated, or repeated)")
			fs.Var(&f.passEnv, "pass-env", "with --mcp-command: environment variables the server gets besides PATH, HOME, USER, LANG, LC_ALL, TMPDIR and TZ")
		},
		run: func(c *call, args []string) error {
			if len(args) != 1 {
				return usagef("env add: give a NAME and one of --sql FILE, --files DIR, --postgres URL, --mcp-command 'CMD ARGS…' or --mcp-url URL")
			}
			e, err := f.env(args[0])
			if err != nil {
				return err
			}
			s, err := c.service()
			if err != nil {
				return err
			}
			// add needs a sound memreview.toml (list and rm do not).
			if _, _, err := s.EnvConfig(); err != nil {
				return err
			}
			if (e.Kind == probe.KindPostgres || e.Kind == probe.KindMCP) && probe.CheckEnv(e) == nil {
				fmt.Fprintf(c.stderr, "checking %s…\n", e.Target())
			}
			e, err = s.AddEnv(c.ctx, e)
			if err != nil {
				return err
			}
			switch e.Kind {
			case probe.KindSQL, probe.KindFiles:
				fmt.Fprintf(c.stdout, "added %s env %s → %s\n", e.Kind, args[0], e.Path)
				if e.Symlink {
					fmt.Fprintf(c.stdout, "%s is a symbolic link; probes will follow it\n", e.Path)
				}
			default:
				fmt.Fprintf(c.stdout, "added %s env %s → %s\n", e.Kind, args[0], e.Target())
			}
			if e.Kind == probe.KindMCP {
				fmt.Fprintf(c.stdout, "see its tools with: memreview env tools %s\n", args[0])
			}
			return nil
		}}
}

// env builds the declaration the flags describe, refusing a mix of kinds
// or a flag of another kind.
func (f *envAddFlags) env(name string) (probe.Env, error) {
	var kinds []string
	for flagName, v := range map[string]string{"--sql": f.sql, "--files": f.files, "--postgres": f.postgres, "--mcp-command": f.mcpCommand, "--mcp-url": f.mcpURL} {
		if v != "" {
			kinds = append(kinds, flagName)
		}
	}
	if len(kinds) != 1 {
		return probe.Env{}, usagef("env add: give exactly one of --sql FILE, --files DIR, --postgres URL, --mcp-command 'CMD ARGS…' or --mcp-url URL")
	}
	e := probe.Env{Name: name, PasswordEnv: f.passwordEnv, TokenFile: f.tokenFile, Allow: f.allow, PassEnv: f.passEnv}
	switch {
	case f.sql != "":
		e.Kind, e.Path = probe.KindSQL, f.sql
	case f.files != "":
		e.Kind, e.Path = probe.KindFiles, f.files
	case f.postgres != "":
		e.Kind, e.URL = probe.KindPostgres, f.postgres
	case f.mcpCommand != "":
		cmd, err := probe.SplitCommand(f.mcpCommand)
		if err != nil {
			return probe.Env{}, usagef("env add: --mcp-command: %v", err)
		}
		e.Kind, e.Command = probe.KindMCP, cmd
	default:
		e.Kind, e.URL = probe.KindMCP, f.mcpURL
	}
	for flagName, set := range map[string]bool{
		"--password-env":   f.passwordEnv != "" && e.Kind != probe.KindPostgres,
		"--mcp-token-file": f.tokenFile != "" && f.mcpURL == "",
		"--allow":          len(f.allow) > 0 && e.Kind != probe.KindMCP,
		"--pass-env":       len(f.passEnv) > 0 && f.mcpCommand == "",
	} {
		if set {
			return probe.Env{}, usagef("env add: %s does not go with %s", flagName, kinds[0])
		}
	}
	return e, nil
}

// listFlag is a flag of names, comma-separated or repeated.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, w := range strings.Split(v, ",") {
		if w = strings.TrimSpace(w); w != "" {
			*l = append(*l, w)
		}
	}
	return nil
}

func envListCommand() *command {
	return &command{name: "list", args: "",
		summary: "List the environments: kind, target and whether each can be probed now (and why not), with a warning for each bad entry.",
		json:    true,
		run: func(c *call, args []string) error {
			if len(args) > 0 {
				return usagef("env list: takes no arguments, got %q", args)
			}
			s, err := c.service()
			if err != nil {
				return err
			}
			// list reads the file without checking its entries, so that a
			// bad one can be seen and removed.
			envs, problems, err := s.EnvStatuses(c.ctx)
			if err != nil {
				return err
			}
			if c.json {
				if err := printJSON(c.stdout, nonNil(envs)); err != nil {
					return err
				}
			} else {
				printEnvs(c.stdout, envs)
			}
			for _, p := range problems {
				fmt.Fprintf(c.stderr, "memreview: warning: %s: %v (remove it with 'memreview env rm NAME')\n", s.Info().ConfigFile, p)
			}
			return nil
		}}
}

// printEnvs writes one line an environment: name, kind, target, health.
func printEnvs(w io.Writer, envs []app.EnvStatus) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, e := range envs {
		name := e.Name
		if review.CheckEnvName(name) != nil {
			name = strconv.Quote(name)
		}
		health := "reachable: " + e.Health.Detail
		if !e.Health.Reachable {
			health = "UNREACHABLE: " + e.Health.Detail
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", printable.Line(name), e.Kind, printable.Line(e.Target), printable.Line(health))
	}
	tw.Flush()
}

func envRmCommand() *command {
	return &command{name: "rm", args: "NAME",
		summary: "Remove every environment named NAME (a name declared twice, or an empty one, can be cleaned up so).",
		run: func(c *call, args []string) error {
			if len(args) != 1 {
				return usagef("env rm: give one NAME")
			}
			s, err := c.service()
			if err != nil {
				return err
			}
			n, err := s.RemoveEnv(args[0])
			if err != nil {
				return err
			}
			if n > 1 {
				fmt.Fprintf(c.stdout, "removed %d environments named %q\n", n, args[0])
			}
			return nil
		}}
}
