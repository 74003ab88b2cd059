// Package cli is memreview's command line, a front end like the TUI and
// the MCP server: it parses the arguments, calls the application service
// (review/app) and prints what it answers — tables for people, exact JSON
// with --json. With no command it opens the TUI (on the embedded sample
// world when no bank is configured); 'memreview help' lists the commands.
//
// It may import the service, the TUI, the MCP server and the domain's
// types; never a store, a format or the index directly.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/printable"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui"
	"github.com/memreview/memreview/ui/common"
)

// usageError marks a command-line mistake: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// app is what every command gets: global flags and the output streams.
type cmdline struct {
	bank     string // --bank, $MEMREVIEW_BANK or ./.memreview
	explicit bool   // bank named by flag or environment
	operator string
	stdin    io.Reader
	stdout   io.Writer
	stderr   io.Writer
	ctx      context.Context
	// muteProgress stops the index progress line (the TUI's screen is up).
	muteProgress atomic.Bool
	// tuiProgress, once set, receives the index progress instead (the TUI
	// shows it in its footer).
	tuiProgress atomic.Pointer[func(done, total int)]
}

// command is one subcommand: its usage line, help text and body.
type command struct {
	name  string
	args  string
	help  string
	flags func(fs *flag.FlagSet) // declares the command's own flags
	run   func(a *cmdline, fs *flag.FlagSet) error
}

// Run runs memreview with args (without the program name) and returns its
// exit status: 0 done, 1 failed, 2 a usage error. With no command it opens
// the TUI.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Human-readable output is escaped (printable): text from the bank, an
	// import or the curator never reaches the terminal as raw control
	// characters. JSON output (exactJSON) goes to stdout untouched.
	rawOut, safeOut, safeErr := stdout, printable.NewWriter(stdout), printable.NewWriter(stderr)
	defer safeOut.Flush()
	defer safeErr.Flush()
	stdout, stderr = safeOut, safeErr
	a := &cmdline{stdin: stdin, stdout: stdout, stderr: stderr, ctx: ctx}
	global := flag.NewFlagSet("memreview", flag.ContinueOnError)
	global.SetOutput(stderr)
	global.StringVar(&a.bank, "bank", "", "bank directory or postgres://USER@HOST/DB (default $MEMREVIEW_BANK, else ./.memreview)")
	global.StringVar(&a.operator, "operator", "", "who is deciding (default $MEMREVIEW_OPERATOR, else the OS user)")
	global.Usage = func() { printUsage(stderr) }
	if err := global.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	a.explicit = a.bank != ""
	if a.bank == "" {
		if v := os.Getenv("MEMREVIEW_BANK"); v != "" {
			a.bank, a.explicit = v, true
		} else {
			a.bank = ".memreview"
		}
	}
	a.operator = store.OperatorName(a.operator)
	rest := global.Args()
	if len(rest) == 0 {
		return exit(stderr, runTUI(a, false))
	}
	name := rest[0]
	if name == "help" {
		if len(rest) > 1 {
			if c, ok := commands()[rest[1]]; ok {
				printCommandHelp(stdout, c)
				return 0
			}
			fmt.Fprintf(stderr, "memreview: no command %q\n", rest[1])
			return 2
		}
		printUsage(stdout)
		return 0
	}
	c, ok := commands()[name]
	if !ok {
		fmt.Fprintf(stderr, "memreview: unknown command %q (run 'memreview help')\n", name)
		return 2
	}
	fs := flag.NewFlagSet("memreview "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { printCommandHelp(stderr, c) }
	if c.flags != nil {
		c.flags(fs)
	}
	if err := fs.Parse(rest[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := flagAfterArgs(c, fs, rest[1:]); err != nil {
		return exit(stderr, err)
	}
	if exactJSON(c, fs) {
		a.stdout = rawOut
	}
	return exit(stderr, c.run(a, fs))
}

// exactJSON reports whether the command prints JSON, which must reach
// stdout exactly: export, and any command run with --json (env list takes
// it after its subcommand too).
func exactJSON(c *command, fs *flag.FlagSet) bool {
	if c.name == "export" {
		return true
	}
	if f := fs.Lookup("json"); f != nil && f.Value.String() == "true" {
		return true
	}
	if c.name == "env" && fs.Arg(0) == "list" {
		for _, arg := range fs.Args()[1:] {
			if arg == "--json" || arg == "-json" || arg == "--json=true" || arg == "-json=true" {
				return true
			}
		}
	}
	return false
}

// flagAfterArgs refuses a command's own flag given after its arguments,
// which the flag package would otherwise take as an argument and the
// command silently ignore (or search for). probe takes free text, and env
// add and sample gen their own flags, after their first argument, so they
// are left alone, and so is everything after "--".
func flagAfterArgs(c *command, fs *flag.FlagSet, args []string) error {
	if c.name == "probe" || c.name == "env" || c.name == "sample" || c.name == "import" && fs.NArg() > 0 && (fs.Arg(0) == "trajectories" || fs.Arg(0) == "memories") {
		return nil
	}
	if parsed := args[:len(args)-fs.NArg()]; len(parsed) > 0 && parsed[len(parsed)-1] == "--" {
		return nil
	}
	for _, arg := range fs.Args() {
		name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		if !strings.HasPrefix(arg, "-") || name == "" || fs.Lookup(name) == nil {
			continue
		}
		return usagef("%s: flag %s comes after the arguments; flags come before them (memreview %s [FLAGS] %s)", c.name, arg, c.name, c.args)
	}
	return nil
}

func exit(stderr io.Writer, err error) int {
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "memreview: %v\n", err)
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `memreview — review what an LLM curator writes into an agent's memory bank.

usage: memreview [--bank DIR] [--operator NAME] [COMMAND [FLAGS] [ARGS]]

With no command, memreview opens the TUI (the sample world when no bank is set).

commands:
`)
	cs := commands()
	names := make([]string, 0, len(cs))
	for n := range cs {
		names = append(names, n)
	}
	sort.Strings(names)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, n := range names {
		first, _, _ := strings.Cut(cs[n].help, "\n")
		fmt.Fprintf(tw, "  %s\t%s\n", n, first)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nRun 'memreview help COMMAND' for a command's flags. Flags come before arguments.")
}

func printCommandHelp(w io.Writer, c *command) {
	fmt.Fprintf(w, "usage: memreview [--bank DIR] %s %s\n\n%s\n", c.name, c.args, c.help)
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	if c.flags != nil {
		c.flags(fs)
	}
	has := false
	fs.VisitAll(func(*flag.Flag) { has = true })
	if has {
		fmt.Fprintln(w, "\nflags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
}

// open opens the bank as a service. Its index opens on first use: a
// command that only writes never waits for it, and one that searches while
// another process (the TUI) holds the index asks that process.
func (a *cmdline) open() (*app.Service, error) {
	if isPGBank(a.bank) {
		svc, _, err := app.OpenPG(a.ctx, a.bank, app.Options{Operator: a.operator, Warnf: a.warnf, IndexProgress: a.indexProgress(), FinishIndex: true})
		return svc, err
	}
	// A command answers while the index catches up, and then lets the
	// catch-up it started end before it exits (FinishIndex).
	return app.Open(a.bank, app.Options{Operator: a.operator, Warnf: a.warnf, IndexProgress: a.indexProgress(), FinishIndex: true})
}

// warnf prints a warning on stderr: something went wrong after a write
// committed (the command still succeeds).
func (a *cmdline) warnf(format string, args ...any) {
	fmt.Fprintf(a.stderr, "memreview: warning: "+format+"\n", args...)
}

// nonNil returns s, or an empty slice for nil, so that an empty list
// prints as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func needArgs(fs *flag.FlagSet, min int, what string) error {
	if fs.NArg() < min {
		return usagef("%s: missing %s", strings.TrimPrefix(fs.Name(), "memreview "), what)
	}
	return nil
}

func commands() map[string]*command {
	var jsonOut bool
	jsonFlag := func(fs *flag.FlagSet) { fs.BoolVar(&jsonOut, "json", false, "print JSON") }
	cs := []*command{
		{name: "init", args: "", help: "Create an empty bank in the --bank directory.",
			run: func(a *cmdline, fs *flag.FlagSet) error {
				if isPGBank(a.bank) {
					return a.initPG()
				}
				svc, err := app.Create(a.bank, app.Options{Operator: a.operator})
				if err != nil {
					return err
				}
				defer svc.Close()
				fmt.Fprintf(a.stdout, "created bank %s\n", svc.Dir())
				return nil
			}},
		{name: "import", args: "records|proposals|trajectories|memories FILE...", help: "Import JSON Lines records or proposals, trajectories in any format 'memreview formats' lists,\nor an existing memory bank (mem0, MCP memory, Letta) as pending create proposals; '-' reads stdin.\nThe whole input is validated first; on any error nothing is written.",
			flags: importFlags, run: cmdImport},
		{name: "export", args: "records|proposals|decisions|trajectories", help: "Write the bank as JSON Lines on stdout.",
			run: cmdExport},
		{name: "search", args: "QUERY", help: "Search the bank (Bleve query-string syntax: terms, field:value, +/-, \"phrases\", confidence:>0.7).\nEvery term must match (AND); a query that says OR anywhere matches any term.",
			flags: func(fs *flag.FlagSet) {
				jsonFlag(fs)
				fs.String("type", "record", "record, trajectory or proposal")
				fs.String("env", "", "only this environment")
				fs.String("category", "", "only this category")
				fs.String("status", "", "only this status (records: active unless this or a status: term asks for retired)")
				fs.Int("k", 10, "number of hits")
				fs.Bool("exact", false, "count and rank every hit (a huge result set is otherwise estimated, and ranked on its first 100,000)")
			},
			run: func(a *cmdline, fs *flag.FlagSet) error { return cmdSearch(a, fs, jsonOut) }},
		{name: "retrieve", args: "TASK_TEXT", help: "Show the records a task agent would be given for a task.",
			flags: func(fs *flag.FlagSet) {
				jsonFlag(fs)
				fs.String("env", "", "the task's environment (scope filter)")
				fs.String("tags", "", "the task's tags, comma-separated (scope filter)")
				fs.Int("k", 5, "number of records")
				fs.String("task-id", "", "the task's id (a trajectory id links the retrieval to how it ended), for the retrieval log")
			},
			run: func(a *cmdline, fs *flag.FlagSet) error { return cmdRetrieve(a, fs, jsonOut) }},
		{name: "show", args: "ID", help: "Show a record, proposal, decision, trajectory or probe run.",
			flags: jsonFlag, run: func(a *cmdline, fs *flag.FlagSet) error { return cmdShow(a, fs, jsonOut) }},
		{name: "history", args: "RECORD_ID", help: "Show every version of a record with who wrote it and why.",
			flags: jsonFlag, run: func(a *cmdline, fs *flag.FlagSet) error { return cmdHistory(a, fs, jsonOut) }},
		{name: "queue", args: "", help: "List the open proposals.",
			flags: jsonFlag, run: func(a *cmdline, fs *flag.FlagSet) error { return cmdQueue(a, jsonOut) }},
		{name: "decide", args: "PROPOSAL_ID accept|narrow|edit|reject|delete|defer", help: "Decide a proposal. narrow and edit take the changed fields from the flags.",
			flags: func(fs *flag.FlagSet) {
				jsonFlag(fs)
				fs.String("note", "", "why (kept in the audit entry)")
				fs.String("scope-tags", "", "narrow/edit: new scope tags, comma-separated")
				fs.String("trigger", "", "narrow/edit: new trigger")
				fs.String("lemma", "", "narrow/edit: new lemma")
			},
			run: func(a *cmdline, fs *flag.FlagSet) error { return cmdDecide(a, fs, jsonOut) }},
		{name: "merge", args: "--with ID,ID PROPOSAL_ID", help: "Fold a proposal's record and the given records into one; sources are retired.",
			flags: func(fs *flag.FlagSet) {
				jsonFlag(fs)
				fs.String("with", "", "record ids to fold in, comma-separated")
				fs.String("lemma", "", "the merged record's lemma (default: every lemma's sentences, the proposal's first)")
				fs.String("note", "", "why")
			},
			run: func(a *cmdline, fs *flag.FlagSet) error { return cmdMerge(a, fs, jsonOut) }},
		{name: "undo", args: "[DECISION_ID]", help: "Undo a decision (default: the last one not yet undone).",
			flags: func(fs *flag.FlagSet) { jsonFlag(fs); fs.String("note", "", "why") },
			run:   func(a *cmdline, fs *flag.FlagSet) error { return cmdUndo(a, fs, jsonOut) }},
		{name: "reindex", args: "", help: "Rebuild the search index from bank.db.",
			run: func(a *cmdline, fs *flag.FlagSet) error {
				svc, err := a.open()
				if err != nil {
					return err
				}
				defer svc.Close()
				n, err := svc.Reindex()
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "reindexed %d documents\n", n)
				return nil
			}},
	}
	cs = append(cs, formatsCommand())
	cs = append(cs, hygieneCommand(&jsonOut))
	cs = append(cs, probeCommands(&jsonOut)...)
	cs = append(cs, checkCommands(&jsonOut)...)
	cs = append(cs, worldCommands(&jsonOut)...)
	cs = append(cs, serveCommand)
	cs = append(cs, migrateCommand(), claimCommand())
	m := map[string]*command{}
	for _, c := range cs {
		m[c.name] = c
	}
	return m
}

func flagString(fs *flag.FlagSet, name string) string { return fs.Lookup(name).Value.String() }

func flagInt(fs *flag.FlagSet, name string) int {
	return fs.Lookup(name).Value.(flag.Getter).Get().(int)
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// openTUIBank opens the bank for the TUI: its store (for the header's
// bank name only), its service, and a log file beside it
// (BANK/memreview.log; a PostgreSQL bank's beside its local index).
func (a *cmdline) openTUIBank() (*store.Store, *app.Service, *log.Logger, func(), error) {
	if isPGBank(a.bank) {
		return a.openTUIBankPG()
	}
	st, err := store.Open(a.bank, store.Options{})
	if err != nil {
		return nil, nil, nil, nil, err
	}
	logf, err := os.OpenFile(filepath.Join(st.Dir(), "memreview.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		st.Close()
		return nil, nil, nil, nil, err
	}
	lg := log.New(logf, "", log.LstdFlags)
	// The TUI takes the index before its screen opens: a first build of a
	// large bank shows its progress on the terminal meanwhile.
	svc := app.OpenStore(st, app.Options{Operator: a.operator, Logf: lg.Printf, IndexProgress: a.indexProgress()})
	return st, svc, lg, func() { logf.Close() }, nil
}

// runTUI opens the TUI on a.bank, or on the sample world when no bank was
// named and ./.memreview does not exist.
func runTUI(a *cmdline, isSample bool) error {
	if !isSample && !a.explicit {
		if _, err := os.Stat(filepath.Join(a.bank, store.DBFile)); err != nil {
			dir, err := sample.MaterialiseDefault(false)
			if err != nil {
				return err
			}
			a.bank, isSample = dir, true
		}
	}
	st, svc, lg, closeLog, err := a.openTUIBank()
	if err != nil {
		return err
	}
	defer closeLog()
	// Libraries that log through the standard logger (bleve's scorch does,
	// on a damaged or vanished segment) must not write over the screen.
	log.SetOutput(lg.Writer())
	defer log.SetOutput(os.Stderr)
	set, err := svc.CuratorSettings("")
	if err != nil {
		svc.Close()
		return err
	}
	// The TUI owns the shared index and serves other processes' searches;
	// when a long-running process owns it already, the screens' searches
	// go through that one (the service asks it). Opening it may build or
	// catch it up (minutes on a large bank after an import), so it opens
	// in the background: the first frame does not wait, the footer shows
	// the progress, and searches wait in their Cmds.
	progress, held := a.holdIndexInBackground(svc, lg)
	a.muteProgress.Store(true) // from here on the screen is the TUI's
	err = ui.Run(common.Deps{
		Service: svc, BankName: bankName(a.bank, st), IsSample: isSample,
		Operator: a.operator, Log: lg, Curator: common.NewCurator(set), IndexProgress: progress,
	})
	select {
	case <-held:
		svc.Close()
	default:
		// Quit while the index is still being built: Close would wait for
		// the build. The bank's writes are committed; the unfinished build
		// is never swapped in, and the next process builds it again.
		lg.Printf("quit while the search index was still being opened; it opens again next time")
	}
	return err
}

// holdIndexInBackground makes this process the index's owner in a
// goroutine. progress carries how far a build or catch-up has come, then
// and later (the owner catches up other processes' writes), the latest
// report only (older ones unread are dropped); held closes once the index
// is open.
func (a *cmdline) holdIndexInBackground(svc *app.Service, lg *log.Logger) (<-chan common.IndexProgress, <-chan struct{}) {
	progress := make(chan common.IndexProgress, 1)
	held := make(chan struct{})
	var mu sync.Mutex
	send := func(p common.IndexProgress) {
		mu.Lock()
		defer mu.Unlock()
		select { // keep only the latest report
		case <-progress:
		default:
		}
		progress <- p
	}
	report := func(done, total int) { send(common.IndexProgress{Done: done, Total: total}) }
	a.tuiProgress.Store(&report)
	go func() {
		defer close(held)
		if _, ierr := svc.HoldIndex(3 * time.Second); ierr != nil {
			lg.Printf("the index is held by another process: %v", ierr)
		}
		send(common.IndexProgress{}) // open: whatever the last report said, the footer line goes
	}()
	return progress, held
}
