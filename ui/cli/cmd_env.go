package cli

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

// envCommand manages the environments (probe targets) in memreview.toml.
func envCommand() *command {
	return &command{name: "env", args: "add|list|rm",
		summary: "Manage the bank's environments, the probe targets in memreview.toml.",
		subs:    []*command{envAddCommand(), envListCommand(), envRmCommand()}}
}

func envAddCommand() *command {
	var sqlPath, dirPath string
	return &command{name: "add", args: "NAME --sql FILE | --files DIR",
		summary:      "Add an environment: a SQLite database (--sql) or a folder of files (--files).",
		interspersed: true,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&sqlPath, "sql", "", "a SQLite database file")
			fs.StringVar(&dirPath, "files", "", "a folder")
		},
		run: func(c *call, args []string) error {
			if len(args) != 1 {
				return usagef("env add: give a NAME and --sql FILE or --files DIR")
			}
			var kind probe.Kind
			var path string
			switch {
			case sqlPath != "" && dirPath == "":
				kind, path = probe.KindSQL, sqlPath
			case dirPath != "" && sqlPath == "":
				kind, path = probe.KindFiles, dirPath
			default:
				return usagef("env add: give exactly one of --sql FILE or --files DIR")
			}
			s, err := c.open()
			if err != nil {
				return err
			}
			defer s.Close()
			// add needs a sound memreview.toml (list and rm do not).
			if _, _, err := s.EnvConfig(); err != nil {
				return err
			}
			e, err := s.AddEnv(args[0], kind, path)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "added %s env %s → %s\n", e.Kind, args[0], e.Path)
			if e.Symlink {
				fmt.Fprintf(c.stdout, "%s is a symbolic link; probes will follow it\n", e.Path)
			}
			return nil
		}}
}

func envListCommand() *command {
	return &command{name: "list", args: "",
		summary: "List the environments, with a warning for each bad entry.",
		json:    true,
		run: func(c *call, args []string) error {
			if len(args) > 0 {
				return usagef("env list: takes no arguments, got %q", args)
			}
			s, err := c.open()
			if err != nil {
				return err
			}
			defer s.Close()
			// list reads the file without checking its entries, so that a
			// bad one can be seen and removed.
			cfg, problems, err := s.EnvConfig()
			if err != nil {
				return err
			}
			if c.json {
				if err := printJSON(c.stdout, nonNil(cfg.Envs)); err != nil {
					return err
				}
			} else {
				for _, e := range cfg.Envs {
					name := e.Name
					if review.CheckEnvName(name) != nil {
						name = strconv.Quote(name)
					}
					fmt.Fprintf(c.stdout, "%-12s %-6s %s\n", name, e.Kind, e.Path)
				}
			}
			for _, p := range problems {
				fmt.Fprintf(c.stderr, "memreview: warning: %s: %v (remove it with 'memreview env rm NAME')\n", s.Info().ConfigFile, p)
			}
			return nil
		}}
}

func envRmCommand() *command {
	return &command{name: "rm", args: "NAME",
		summary: "Remove every environment named NAME (a name declared twice, or an empty one, can be cleaned up so).",
		run: func(c *call, args []string) error {
			if len(args) != 1 {
				return usagef("env rm: give one NAME")
			}
			s, err := c.open()
			if err != nil {
				return err
			}
			defer s.Close()
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
