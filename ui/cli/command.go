package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strings"
)

// command is one subcommand, declared once in the file named for it: its
// name, a one-sentence summary, its arguments, its flags and what it runs.
type command struct {
	name string
	args string // the usage of its arguments
	// summary is one whole sentence, what 'memreview help' lists; help
	// says more under it in 'memreview help NAME'.
	summary, help string
	// flags declares the command's own flags on fs into variables that run
	// reads (typed, declared beside the flag).
	flags func(fs *flag.FlagSet)
	// json: the command takes --json, and then prints exact JSON on
	// stdout (call.json says whether it was given).
	json bool
	// exact: the command's output is data to keep byte for byte (export).
	exact bool
	// interspersed: flags may come among the arguments (env add NAME
	// --files DIR, import memories --accept FILE).
	interspersed bool
	// text: everything after the flags is free text, dashes and all (a
	// probe's input); flags come before it.
	text bool
	// subs are the command's subcommands (env add, env list, env rm):
	// the first argument names one, and it parses the rest.
	subs []*command
	// smallHeap: a one-shot read whose heap stays small (search): the
	// process collects garbage less often while it runs (gcPercent).
	smallHeap bool
	// bulkWrite: a write of a whole file that the index follows (import):
	// the process collects garbage less often (bulkWriteGC), under a soft
	// memory limit (bulkWriteLimit).
	bulkWrite bool
	run       func(c *call, args []string) error
}

// bulkWriteGC is the GOGC a bulkWrite command runs under: importing
// 100,000 records took 42–44 CPU-s under GOGC 200 against 52 under the
// default 100 (the index's segments and the records read are garbage
// the collector marked again and again), for a peak of 590 MB resident
// against 400 (BENCHMARKS.md, "Records: committed, searchable, caught
// up").
const bulkWriteGC = 200

// bulkWriteLimit is the soft memory limit a bulkWrite command runs under:
// the larger heap goal stops at 4 GiB, where the collector runs as often
// as it must to stay there (not measured at a million records).
const bulkWriteLimit = 4 << 30

// smallHeapGC is the GOGC a smallHeap command runs under: its first
// collection comes at a 16 MB heap, not 4 MB. A search in a fresh process
// at 100,000 records otherwise ran with its first collection marking
// beside it, on 2 cores three times as slow (BENCHMARKS.md, "Through the
// CLI").
const smallHeapGC = 400

// gcPercent is the GOGC cmd runs under, or 0 to leave the process's own:
// smallHeapGC for a smallHeap command unless GOGC in the environment
// (getenv) says otherwise, as the operator's wins.
func (cmd *command) gcPercent(getenv func(string) string) int {
	switch {
	case getenv("GOGC") != "":
		return 0
	case cmd.smallHeap:
		return smallHeapGC
	case cmd.bulkWrite:
		return bulkWriteGC
	}
	return 0
}

// memoryLimit is the soft memory limit cmd runs under, or 0 to leave the
// process's own: bulkWriteLimit for a bulkWrite command unless GOMEMLIMIT
// or GOGC in the environment says otherwise.
func (cmd *command) memoryLimit(getenv func(string) string) int64 {
	if !cmd.bulkWrite || getenv("GOMEMLIMIT") != "" || getenv("GOGC") != "" {
		return 0
	}
	return bulkWriteLimit
}

// usageError marks a command-line mistake: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// lookup finds a command by name.
func lookup(name string) (*command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return nil, false
}

// parse reads the command's flags from args and returns its arguments.
// full is the command's name as the user typed it ("env add").
func (cmd *command) parse(c *call, full string, args []string) ([]string, error) {
	fs := flag.NewFlagSet("memreview "+full, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	fs.Usage = func() { printCommandHelp(c.stderr, full, cmd) }
	if cmd.flags != nil {
		cmd.flags(fs)
	}
	if cmd.json {
		fs.BoolVar(&c.json, "json", false, "print JSON")
	}
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		parsed := args[:len(args)-fs.NArg()]
		args = fs.Args()
		ended := len(parsed) > 0 && parsed[len(parsed)-1] == "--"
		if !cmd.interspersed || ended || len(args) == 0 {
			rest = append(rest, args...)
			if !cmd.text && !ended {
				if err := flagAmongArgs(fs, full, cmd, rest); err != nil {
					return nil, err
				}
			}
			return rest, nil
		}
		rest, args = append(rest, args[0]), args[1:]
	}
}

// flagAmongArgs refuses one of the command's own flags given after its
// arguments, which the flag package would otherwise take as an argument
// (and the command search for, or ignore); "--" lets an argument start
// with a dash.
func flagAmongArgs(fs *flag.FlagSet, full string, cmd *command, args []string) error {
	for _, arg := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if strings.HasPrefix(arg, "-") && name != "" && fs.Lookup(name) != nil {
			return usagef("%s: flag %s comes after the arguments; flags come before them (memreview %s [FLAGS] %s)", full, arg, full, cmd.args)
		}
	}
	return nil
}

// dispatch finds the command (and subcommand) args name, parses its flags
// and runs it.
func dispatch(c *call, args []string) error {
	cmd, ok := lookup(args[0])
	if !ok {
		return usagef("unknown command %q (run 'memreview help')", args[0])
	}
	full, args := cmd.name, args[1:]
	if len(cmd.subs) > 0 {
		// The subcommand is the first argument that is not a flag; flags
		// before it are its own (env --json list).
		i := 0
		for i < len(args) && strings.HasPrefix(args[i], "-") {
			i++
		}
		if i == len(args) {
			return usagef("%s: say which: %s", full, subNames(cmd))
		}
		sub, ok := cmd.sub(args[i])
		if !ok {
			return usagef("%s: %q is not %s", full, args[i], subNames(cmd))
		}
		cmd, full, args = sub, full+" "+sub.name, append(args[:i:i], args[i+1:]...)
	}
	rest, err := cmd.parse(c, full, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return usageError{err.Error()}
	}
	if cmd.exact || c.json {
		c.stdout = c.rawOut
	}
	if gc := cmd.gcPercent(os.Getenv); gc > 0 {
		defer debug.SetGCPercent(debug.SetGCPercent(gc))
	}
	if limit := cmd.memoryLimit(os.Getenv); limit > 0 {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	}
	defer c.closeService()
	return cmd.run(c, rest)
}

func (cmd *command) sub(name string) (*command, bool) {
	for _, s := range cmd.subs {
		if s.name == name {
			return s, true
		}
	}
	return nil, false
}

func subNames(cmd *command) string {
	names := make([]string, len(cmd.subs))
	for i, s := range cmd.subs {
		names[i] = s.name
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// needArgs refuses fewer than min arguments, naming what is missing.
func needArgs(full string, args []string, min int, what string) error {
	if len(args) < min {
		return usagef("%s: missing %s", full, what)
	}
	return nil
}

// noArgs refuses any argument.
func noArgs(full string, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments (got %q)", full, args[0])
	}
	return nil
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `memreview — review what an LLM curator writes into an agent's memory bank.

usage: memreview [--bank DIR|URL] [--operator NAME] [COMMAND [FLAGS] [ARGS]]

With no command, memreview opens the TUI (the sample world when no bank is set).

commands:
`)
	cs := commands()
	sort.Slice(cs, func(i, j int) bool { return cs[i].name < cs[j].name })
	writeSummaries(w, cs)
	fmt.Fprintln(w, "\nRun 'memreview help COMMAND' for a command's flags. Flags come before arguments.")
}

func printCommandHelp(w io.Writer, full string, c *command) {
	fmt.Fprintf(w, "usage: memreview [--bank DIR|URL] %s %s\n\n%s\n", full, c.args, c.summary)
	if c.help != "" {
		fmt.Fprintf(w, "%s\n", c.help)
	}
	for _, s := range c.subs {
		fmt.Fprintf(w, "\n%s %s %s\n  %s\n", full, s.name, s.args, s.summary)
		if s.help != "" {
			fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(s.help, "\n", "\n  "))
		}
		printFlags(w, s)
	}
	printFlags(w, c)
}

func printFlags(w io.Writer, c *command) {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	if c.flags != nil {
		c.flags(fs)
	}
	if c.json {
		fs.Bool("json", false, "print JSON")
	}
	has := false
	fs.VisitAll(func(*flag.Flag) { has = true })
	if has {
		fmt.Fprintln(w, "\nflags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}

// commands is every command, each declared in the file named for it.
func commands() []*command {
	return []*command{
		initCommand(), importCommand(), exportCommand(), formatsCommand(),
		searchCommand(), retrieveCommand(), showCommand(), historyCommand(), queueCommand(),
		decideCommand(), mergeCommand(), undoCommand(), claimCommand(),
		liveCommand(), rebaselineCommand(), verifyCommand(), hygieneCommand(),
		envCommand(), probeCommand(), curateCommand(),
		evalCommand(),
		reindexCommand(), indexCommand(), serveCommand(), migrateCommand(), sampleCommand(), demoCommand(),
		screenCommand(), tokenCommand(), auditCommand(),
		embeddingsCommand(),
	}
}
