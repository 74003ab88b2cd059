// The environment commands: env, probe, verify.

package cli

import (
	"errors"
	"flag"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
)

func probeCommands(jsonOut *bool) []*command {
	return []*command{
		{name: "env", args: "add NAME --sql FILE | --files DIR  |  list  |  rm NAME",
			help: "Manage the bank's environments (probe targets) in memreview.toml.",
			flags: func(fs *flag.FlagSet) {
				fs.BoolVar(jsonOut, "json", false, "print JSON (list)")
			},
			run: func(a *cmdline, fs *flag.FlagSet) error { return cmdEnv(a, fs, *jsonOut) }},
		{name: "probe", args: "ENV INPUT...", help: "Run a read-only probe: SQL on a sql env; ls, read, grep, stat or csv on a files env.\nEverything after ENV is the probe's input.",
			flags: func(fs *flag.FlagSet) {
				fs.BoolVar(jsonOut, "json", false, "print the result as JSON")
				fs.Duration("timeout", probe.DefaultLimits().Timeout, "time limit")
				fs.Int("max-rows", probe.DefaultLimits().MaxRows, "row cap")
			},
			run: func(a *cmdline, fs *flag.FlagSet) error { return cmdProbe(a, fs, *jsonOut) }},
		{name: "verify", args: "", help: "Re-run every active record's checks; flag records whose checks no longer hold.\nExits 1 when any check fails.",
			flags: func(fs *flag.FlagSet) {
				fs.BoolVar(jsonOut, "json", false, "print JSON")
				fs.String("env", "", "only checks on this environment")
			},
			run: func(a *cmdline, fs *flag.FlagSet) error { return cmdVerify(a, fs, *jsonOut) }},
	}
}

func cmdEnv(a *cmdline, fs *flag.FlagSet, jsonOut bool) error {
	if err := needArgs(fs, 1, "add, list or rm"); err != nil {
		return err
	}
	s, err := a.open()
	if err != nil {
		return err
	}
	defer s.Close()
	// list and rm read the file without checking its entries, so that a
	// bad one can be seen and removed; add needs a sound file.
	cfg, problems, err := s.EnvConfig()
	if err != nil {
		return err
	}
	switch fs.Arg(0) {
	case "list":
		// env list --json: the flag may follow the subcommand too.
		sub := flag.NewFlagSet("env list", flag.ContinueOnError)
		sub.SetOutput(a.stderr)
		sub.BoolVar(&jsonOut, "json", jsonOut, "print JSON")
		if err := sub.Parse(fs.Args()[1:]); err != nil {
			return usagef("env list: %v", err)
		}
		if sub.NArg() > 0 {
			return usagef("env list: takes no arguments, got %q", sub.Args())
		}
		if jsonOut {
			if err := printJSON(a.stdout, nonNil(cfg.Envs)); err != nil {
				return err
			}
		} else {
			for _, e := range cfg.Envs {
				name := e.Name
				if review.CheckEnvName(name) != nil {
					name = strconv.Quote(name)
				}
				fmt.Fprintf(a.stdout, "%-12s %-6s %s\n", name, e.Kind, e.Path)
			}
		}
		for _, p := range problems {
			fmt.Fprintf(a.stderr, "memreview: warning: %s: %v (remove it with 'memreview env rm NAME')\n", store.ConfigFile, p)
		}
		return nil
	case "rm":
		// rm NAME removes every entry with that name, so a name declared
		// twice (or an empty one: env rm "") can be cleaned up.
		if fs.NArg() != 2 {
			return usagef("env rm: give one NAME")
		}
		n, err := s.RemoveEnv(fs.Arg(1))
		if err != nil {
			return err
		}
		if n > 1 {
			fmt.Fprintf(a.stdout, "removed %d environments named %q\n", n, fs.Arg(1))
		}
		return nil
	case "add":
		// env add NAME --sql FILE | --files DIR (flags after NAME, parsed here)
		sub := flag.NewFlagSet("env add", flag.ContinueOnError)
		sub.SetOutput(a.stderr)
		sqlPath := sub.String("sql", "", "a SQLite database file")
		dirPath := sub.String("files", "", "a folder")
		if fs.NArg() < 2 {
			return usagef("env add: give a NAME and --sql FILE or --files DIR")
		}
		if err := sub.Parse(fs.Args()[2:]); err != nil {
			return usagef("env add: %v", err)
		}
		name := fs.Arg(1)
		var kind probe.Kind
		var path string
		switch {
		case *sqlPath != "" && *dirPath == "":
			kind, path = probe.KindSQL, *sqlPath
		case *dirPath != "" && *sqlPath == "":
			kind, path = probe.KindFiles, *dirPath
		default:
			return usagef("env add: give exactly one of --sql FILE or --files DIR")
		}
		e, err := s.AddEnv(name, kind, path)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "added %s env %s → %s\n", e.Kind, name, e.Path)
		if e.Symlink {
			fmt.Fprintf(a.stdout, "%s is a symbolic link; probes will follow it\n", e.Path)
		}
		return nil
	}
	return usagef("env: %q is not add, list or rm", fs.Arg(0))
}

func cmdProbe(a *cmdline, fs *flag.FlagSet, jsonOut bool) error {
	if err := needArgs(fs, 2, "ENV and INPUT"); err != nil {
		return err
	}
	s, err := a.open()
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := s.ResolveEnv(fs.Arg(0)); err != nil {
		return err
	}
	lim := probe.DefaultLimits()
	lim.Timeout = fs.Lookup("timeout").Value.(flag.Getter).Get().(time.Duration)
	lim.MaxRows = flagInt(fs, "max-rows")
	res := s.Probe(a.ctx, fs.Arg(0), strings.Join(fs.Args()[1:], " "), lim)
	if jsonOut {
		if err := printJSON(a.stdout, res); err != nil {
			return err
		}
	} else {
		fmt.Fprint(a.stdout, probe.FormatText(res, 0))
	}
	if !res.OK() {
		return errors.New("the probe failed")
	}
	return nil
}

func cmdVerify(a *cmdline, fs *flag.FlagSet, jsonOut bool) error {
	svc, err := a.open()
	if err != nil {
		return err
	}
	defer svc.Close()
	results, err := svc.Verify(a.ctx, flagString(fs, "env"))
	if err != nil {
		return err
	}
	failed := map[string]bool{}
	for _, r := range results {
		if !review.Holds(r.Verdict) {
			failed[r.RecordID] = true
		}
	}
	if jsonOut {
		suspects := make([]string, 0, len(failed))
		for id := range failed {
			suspects = append(suspects, id)
		}
		sort.Strings(suspects)
		if err := printJSON(a.stdout, map[string]any{"checks": nonNil(results), "suspect": suspects}); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			fmt.Fprintf(a.stdout, "%-11s %s #%d  %s: %s\n", r.Verdict, r.RecordID, r.Index+1, r.Env, oneLine(r.Input, 70))
		}
		fmt.Fprintf(a.stdout, "%d checks, %d records suspect\n", len(results), len(failed))
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d records have checks that no longer hold", len(failed))
	}
	return nil
}
