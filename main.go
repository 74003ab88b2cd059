// Command memreview is a terminal tool for the human in the loop of an LLM
// agent's long-term memory: it reviews curator proposals against the
// trajectory and live probes, searches the bank, runs probes and the curator.
//
// With no command it opens the TUI (on the embedded sample world when no
// bank is configured). Run 'memreview help' for the commands.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui"
	"github.com/memreview/memreview/ui/common"
)

// usageError marks a command-line mistake: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// app is what every command gets: global flags and the output streams.
type app struct {
	bank     string // --bank, $MEMREVIEW_BANK or ./.memreview
	explicit bool   // bank named by flag or environment
	operator string
	stdin    io.Reader
	stdout   io.Writer
	stderr   io.Writer
	ctx      context.Context
}

// command is one subcommand: its usage line, help text and body.
type command struct {
	name  string
	args  string
	help  string
	flags func(fs *flag.FlagSet) // declares the command's own flags
	run   func(a *app, fs *flag.FlagSet) error
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, ctx: ctx}
	global := flag.NewFlagSet("memreview", flag.ContinueOnError)
	global.SetOutput(stderr)
	global.StringVar(&a.bank, "bank", "", "bank directory (default $MEMREVIEW_BANK, else ./.memreview)")
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
	a.operator = review.OperatorName(a.operator)
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
	return exit(stderr, c.run(a, fs))
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

// bank is an open store with its index.
type bank struct {
	store *review.Store
	index *index.Index
}

func (b *bank) Close() {
	if b.index != nil {
		b.index.Close()
	}
	b.store.Close()
}

// open opens the bank; withIndex also opens (and catches up) the index.
func (a *app) open(withIndex bool) (*bank, error) {
	s, err := review.Open(a.bank, review.Options{})
	if err != nil {
		return nil, err
	}
	b := &bank{store: s}
	if withIndex {
		ix, err := index.Open(filepath.Join(s.Dir(), review.IndexDir), s)
		if err != nil {
			s.Close()
			return nil, err
		}
		b.index = ix
	}
	return b, nil
}

// sync brings the index up to date after a write. Writes need only the
// store, so a command that decides does not wait for the index; when another
// process holds the index, it catches up on that process's next sync or
// the bank's next open, and nothing is lost.
func (b *bank) sync() error {
	if b.index != nil {
		return b.index.Sync()
	}
	ix, err := index.Open(filepath.Join(b.store.Dir(), review.IndexDir), b.store)
	if errors.Is(err, index.ErrInUse) {
		return nil
	}
	if err != nil {
		return err
	}
	return ix.Close()
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
			run: func(a *app, fs *flag.FlagSet) error {
				s, err := review.Create(a.bank, review.Options{})
				if err != nil {
					return err
				}
				defer s.Close()
				ix, err := index.Open(filepath.Join(s.Dir(), review.IndexDir), s)
				if err != nil {
					return err
				}
				ix.Close()
				fmt.Fprintf(a.stdout, "created bank %s\n", s.Dir())
				return nil
			}},
		{name: "import", args: "records|proposals|trajectories FILE...", help: "Import JSON Lines (or OpenAI chat trajectories); '-' reads stdin.\nThe whole input is validated first; on any error nothing is written.",
			run: cmdImport},
		{name: "export", args: "records|proposals|decisions|trajectories", help: "Write the bank as JSON Lines on stdout.",
			run: cmdExport},
		{name: "search", args: "QUERY", help: "Search the bank (Bleve query-string syntax: terms, field:value, +/-, \"phrases\", confidence:>0.7).",
			flags: func(fs *flag.FlagSet) {
				jsonFlag(fs)
				fs.String("type", "record", "record, trajectory or proposal")
				fs.String("env", "", "only this environment")
				fs.String("category", "", "only this category")
				fs.String("status", "", "only this status")
				fs.Int("k", 10, "number of hits")
			},
			run: func(a *app, fs *flag.FlagSet) error { return cmdSearch(a, fs, jsonOut) }},
		{name: "retrieve", args: "TASK_TEXT", help: "Show the records a task agent would be given for a task.",
			flags: func(fs *flag.FlagSet) {
				jsonFlag(fs)
				fs.String("env", "", "the task's environment (scope filter)")
				fs.String("tags", "", "the task's tags, comma-separated (scope filter)")
				fs.Int("k", 5, "number of records")
			},
			run: func(a *app, fs *flag.FlagSet) error { return cmdRetrieve(a, fs, jsonOut) }},
		{name: "show", args: "ID", help: "Show a record, proposal, decision, trajectory or probe run.",
			flags: jsonFlag, run: func(a *app, fs *flag.FlagSet) error { return cmdShow(a, fs, jsonOut) }},
		{name: "history", args: "RECORD_ID", help: "Show every version of a record with who wrote it and why.",
			flags: jsonFlag, run: func(a *app, fs *flag.FlagSet) error { return cmdHistory(a, fs, jsonOut) }},
		{name: "queue", args: "", help: "List the open proposals.",
			flags: jsonFlag, run: func(a *app, fs *flag.FlagSet) error { return cmdQueue(a, jsonOut) }},
		{name: "decide", args: "PROPOSAL_ID accept|narrow|edit|reject|delete|defer", help: "Decide a proposal. narrow and edit take the changed fields from the flags.",
			flags: func(fs *flag.FlagSet) {
				jsonFlag(fs)
				fs.String("note", "", "why (kept in the audit entry)")
				fs.String("scope-tags", "", "narrow/edit: new scope tags, comma-separated")
				fs.String("trigger", "", "narrow/edit: new trigger")
				fs.String("lemma", "", "narrow/edit: new lemma")
			},
			run: func(a *app, fs *flag.FlagSet) error { return cmdDecide(a, fs, jsonOut) }},
		{name: "merge", args: "--with ID,ID PROPOSAL_ID", help: "Fold a proposal's record and the given records into one; sources are retired.",
			flags: func(fs *flag.FlagSet) {
				jsonFlag(fs)
				fs.String("with", "", "record ids to fold in, comma-separated")
				fs.String("lemma", "", "the merged record's lemma (default: the proposal's)")
				fs.String("note", "", "why")
			},
			run: func(a *app, fs *flag.FlagSet) error { return cmdMerge(a, fs, jsonOut) }},
		{name: "undo", args: "[DECISION_ID]", help: "Undo a decision (default: the last one not yet undone).",
			flags: func(fs *flag.FlagSet) { jsonFlag(fs); fs.String("note", "", "why") },
			run:   func(a *app, fs *flag.FlagSet) error { return cmdUndo(a, fs, jsonOut) }},
		{name: "reindex", args: "", help: "Rebuild the search index from bank.db.",
			run: func(a *app, fs *flag.FlagSet) error {
				b, err := a.open(true)
				if err != nil {
					return err
				}
				defer b.Close()
				if err := b.index.Rebuild(); err != nil {
					return err
				}
				n, err := b.index.DocCount()
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "reindexed %d documents\n", n)
				return nil
			}},
	}
	cs = append(cs, probeCommands(&jsonOut)...)
	cs = append(cs, worldCommands(&jsonOut)...)
	m := map[string]*command{}
	for _, c := range cs {
		m[c.name] = c
	}
	return m
}

// openInput opens a named file, or stdin for "-".
func (a *app) openInput(name string) (io.ReadCloser, string, error) {
	if name == "-" {
		return io.NopCloser(a.stdin), "<stdin>", nil
	}
	f, err := os.Open(name)
	return f, name, err
}

func cmdImport(a *app, fs *flag.FlagSet) error {
	if err := needArgs(fs, 2, "what to import and a FILE"); err != nil {
		return err
	}
	kind, files := fs.Arg(0), fs.Args()[1:]
	b, err := a.open(false)
	if err != nil {
		return err
	}
	defer b.Close()
	exists := func(id string) bool { _, err := b.store.Record(id); return err == nil }
	var recs []review.Record
	var props []review.Proposal
	var trajs []review.Trajectory
	for _, name := range files {
		r, file, err := a.openInput(name)
		if err != nil {
			return err
		}
		switch kind {
		case "records":
			var rs []review.Record
			if rs, err = review.ReadRecords(r, file); err == nil {
				for _, rec := range rs {
					if exists(rec.ID) {
						err = fmt.Errorf("%s: record %s is already in the bank", file, rec.ID)
						break
					}
				}
				recs = append(recs, rs...)
			}
		case "proposals":
			var ps []review.Proposal
			var lines []int
			if ps, lines, err = review.ReadProposals(r, file); err == nil {
				err = review.CheckProposalTargets(file, ps, lines, exists)
				props = append(props, ps...)
			}
		case "trajectories":
			var ts []review.Trajectory
			if ts, err = review.ReadTrajectories(r, file); err == nil {
				trajs = append(trajs, ts...)
			}
		default:
			err = usagef("import: %q is not records, proposals or trajectories", kind)
		}
		r.Close()
		if err != nil {
			return err
		}
	}
	switch kind {
	case "records":
		err = b.store.PutRecords(recs, a.operator, "import")
		fmt.Fprintf(a.stdout, "imported %d records\n", len(recs))
	case "proposals":
		err = b.store.AddProposals(props, nil)
		fmt.Fprintf(a.stdout, "imported %d proposals\n", len(props))
	case "trajectories":
		err = b.store.PutTrajectories(trajs)
		fmt.Fprintf(a.stdout, "imported %d trajectories\n", len(trajs))
	}
	if err != nil {
		return err
	}
	return b.sync()
}

func cmdExport(a *app, fs *flag.FlagSet) error {
	if err := needArgs(fs, 1, "what to export"); err != nil {
		return err
	}
	b, err := a.open(false)
	if err != nil {
		return err
	}
	defer b.Close()
	switch fs.Arg(0) {
	case "records":
		rs, err := b.store.Records(review.RecordFilter{})
		if err != nil {
			return err
		}
		return review.WriteJSONL(a.stdout, rs)
	case "proposals":
		ps, err := b.store.Proposals()
		if err != nil {
			return err
		}
		return review.WriteJSONL(a.stdout, ps)
	case "decisions":
		ds, err := b.store.Decisions()
		if err != nil {
			return err
		}
		return review.WriteJSONL(a.stdout, ds)
	case "trajectories":
		ts, err := b.store.Trajectories()
		if err != nil {
			return err
		}
		return review.WriteJSONL(a.stdout, ts)
	}
	return usagef("export: %q is not records, proposals, decisions or trajectories", fs.Arg(0))
}

func flagString(fs *flag.FlagSet, name string) string { return fs.Lookup(name).Value.String() }

func flagInt(fs *flag.FlagSet, name string) int {
	return fs.Lookup(name).Value.(flag.Getter).Get().(int)
}

func cmdSearch(a *app, fs *flag.FlagSet, jsonOut bool) error {
	if err := needArgs(fs, 1, "QUERY"); err != nil {
		return err
	}
	b, err := a.open(true)
	if err != nil {
		return err
	}
	defer b.Close()
	req := index.Request{Query: strings.Join(fs.Args(), " "), Type: flagString(fs, "type"), Size: flagInt(fs, "k"),
		Filters: map[string][]string{}, Highlight: true}
	for _, f := range []string{"env", "category", "status"} {
		if v := flagString(fs, f); v != "" {
			req.Filters[f] = []string{v}
		}
	}
	res, err := b.index.Search(req)
	if err != nil {
		return err
	}
	if jsonOut {
		return printJSON(a.stdout, res)
	}
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "%d hits (%s)\n", res.Total, res.Took.Round(1000))
	for _, h := range res.Hits {
		fmt.Fprintf(tw, "%.3f\t%s\t%s\n", h.Score, h.ID, describe(b.store, h.Type, h.ID))
	}
	return tw.Flush()
}

// describe is the one-line summary of a search hit.
func describe(s *review.Store, typ, id string) string {
	switch typ {
	case "trajectory":
		if t, err := s.Trajectory(id); err == nil {
			verdict := "fail"
			if t.Outcome.Passed {
				verdict = "pass"
			}
			return fmt.Sprintf("%s %.2f  %s", verdict, t.Outcome.Reward, oneLine(t.Task, 90))
		}
	case "proposal":
		if p, err := s.Proposal(id); err == nil {
			return fmt.Sprintf("%s %s  %s", p.Op, p.Status, oneLine(p.Rationale, 90))
		}
	default:
		if r, err := s.Record(id); err == nil {
			flag := ""
			if r.Suspect {
				flag = " [suspect]"
			}
			return fmt.Sprintf("%s %s%s  %s", r.Category, r.Status, flag, oneLine(r.Lemma, 90))
		}
	}
	return typ
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

func cmdRetrieve(a *app, fs *flag.FlagSet, jsonOut bool) error {
	if err := needArgs(fs, 1, "TASK_TEXT"); err != nil {
		return err
	}
	b, err := a.open(true)
	if err != nil {
		return err
	}
	defer b.Close()
	scope := review.Scope{Env: flagString(fs, "env"), Tags: splitList(flagString(fs, "tags"))}
	hits, err := b.index.Retrieve(strings.Join(fs.Args(), " "), scope, flagInt(fs, "k"))
	if err != nil {
		return err
	}
	type item struct {
		Score  float64       `json:"score"`
		Record review.Record `json:"record"`
	}
	var out []item
	for _, h := range hits {
		r, err := b.store.Record(h.ID)
		if err != nil {
			return err
		}
		out = append(out, item{h.Score, *r})
	}
	if jsonOut {
		return printJSON(a.stdout, out)
	}
	for _, it := range out {
		fmt.Fprintf(a.stdout, "%.3f  %s  [%s · %s]  %s\n", it.Score, it.Record.ID, it.Record.Category, it.Record.Scope.Env, it.Record.Lemma)
	}
	return nil
}

func cmdShow(a *app, fs *flag.FlagSet, jsonOut bool) error {
	if err := needArgs(fs, 1, "ID"); err != nil {
		return err
	}
	b, err := a.open(false)
	if err != nil {
		return err
	}
	defer b.Close()
	id, s := fs.Arg(0), b.store
	if r, err := s.Record(id); err == nil {
		runs, _ := s.ProbeRunsFor("record", id)
		checks, _ := s.CheckResults(id)
		used, _ := s.RetrievedBy(id)
		if jsonOut {
			return printJSON(a.stdout, map[string]any{"record": r, "evidence": runs, "check_results": checks, "retrieved_by": used})
		}
		writeRecord(a.stdout, r)
		for _, c := range checks {
			fmt.Fprintf(a.stdout, "check %d      %s  %s: %s\n", c.Index+1, c.Verdict, c.Env, oneLine(c.Input, 70))
		}
		for _, run := range runs {
			fmt.Fprintf(a.stdout, "evidence     %s  %s: %s\n", run.ID, run.Result.Env, oneLine(run.Result.Input, 70))
		}
		for _, u := range used {
			fmt.Fprintf(a.stdout, "retrieved by %s  passed=%v reward=%.2f\n", u.Trajectory, u.Outcome.Passed, u.Outcome.Reward)
		}
		return nil
	}
	var v any
	if p, err := s.Proposal(id); err == nil {
		runs, _ := s.ProbeRunsFor("proposal", id)
		v = map[string]any{"proposal": p, "evidence": runs}
	} else if d, err := s.Decision(id); err == nil {
		v = d
	} else if t, err := s.Trajectory(id); err == nil {
		v = t
	} else if r, err := s.ProbeRun(id); err == nil {
		v = r
	} else {
		return fmt.Errorf("no record, proposal, decision, trajectory or probe run has id %q", id)
	}
	return printJSON(a.stdout, v)
}

func writeRecord(w io.Writer, r *review.Record) {
	suspect := ""
	if r.Suspect {
		suspect = "  SUSPECT: a check no longer holds"
	}
	fmt.Fprintf(w, "%s  v%d  %s  %s%s\n", r.ID, r.Version, r.Category, r.Status, suspect)
	fmt.Fprintf(w, "lemma        %s\n", r.Lemma)
	fmt.Fprintf(w, "scope        env=%s tags=%s family=%s\n", r.Scope.Env, strings.Join(r.Scope.Tags, ","), r.Scope.TaskFamily)
	if r.Trigger != "" {
		fmt.Fprintf(w, "trigger      %s\n", r.Trigger)
	}
	for i, st := range r.Steps {
		fmt.Fprintf(w, "step %d       %s\n", i+1, st)
	}
	fmt.Fprintf(w, "confidence   %.2f  priority %d\n", r.Confidence, r.Priority)
	if p := r.Provenance; p.Trajectory != "" || len(p.MergedFrom) > 0 || p.MergedInto != "" {
		steps := ""
		if p.Steps != nil {
			steps = fmt.Sprintf(" steps %d-%d", p.Steps.From, p.Steps.To)
		}
		fmt.Fprintf(w, "provenance   %s%s merged_from=%s merged_into=%s\n", p.Trajectory, steps, strings.Join(p.MergedFrom, ","), p.MergedInto)
	}
	fmt.Fprintf(w, "updated      %s\n", r.Updated.Format("2006-01-02 15:04:05"))
}

func cmdHistory(a *app, fs *flag.FlagSet, jsonOut bool) error {
	if err := needArgs(fs, 1, "RECORD_ID"); err != nil {
		return err
	}
	b, err := a.open(false)
	if err != nil {
		return err
	}
	defer b.Close()
	h, err := b.store.History(fs.Arg(0))
	if err != nil {
		return err
	}
	if jsonOut {
		return printJSON(a.stdout, h)
	}
	for _, v := range h {
		fmt.Fprintf(a.stdout, "v%d  %s  %-7s by %s  %s  %s\n   %s  %s\n", v.Record.Version, v.At.Format("2006-01-02 15:04:05"),
			v.Op, v.Actor, v.Decision, v.Reason, v.Record.Status, v.Record.Lemma)
	}
	return nil
}

func cmdQueue(a *app, jsonOut bool) error {
	b, err := a.open(false)
	if err != nil {
		return err
	}
	defer b.Close()
	q, err := b.store.Queue()
	if err != nil {
		return err
	}
	if jsonOut {
		return printJSON(a.stdout, q)
	}
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	for _, p := range q {
		lemma := ""
		if p.Record != nil {
			lemma = p.Record.Lemma
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.ID, p.Status, p.Op, strings.Join(p.TargetIDs(), ","), oneLine(lemma, 80))
	}
	fmt.Fprintf(tw, "%d open proposals\n", len(q))
	return tw.Flush()
}

// decide opens the bank, commits one decision made by fn, reports it and
// brings the index up to date.
func (a *app) decide(jsonOut bool, fn func(*review.Store) (*review.Decision, error)) error {
	b, err := a.open(false)
	if err != nil {
		return err
	}
	defer b.Close()
	d, err := fn(b.store)
	if err != nil {
		return err
	}
	if jsonOut {
		err = printJSON(a.stdout, d)
	} else {
		fmt.Fprintf(a.stdout, "%s: %s %s by %s\n", d.ID, d.Verb, d.Proposal, d.Operator)
		for _, c := range d.Changes {
			status := ""
			if c.AfterR != nil {
				status = string(c.AfterR.Status)
			}
			fmt.Fprintf(a.stdout, "  %s v%d → v%d %s\n", c.RecordID, c.Before, c.After, status)
		}
	}
	if err != nil {
		return err
	}
	return b.sync()
}

// proposedRecord returns a copy of a proposal's record, for the operator
// to change before deciding.
func proposedRecord(s *review.Store, id string, verb review.Verb) (review.Record, error) {
	p, err := s.Proposal(id)
	if err != nil {
		return review.Record{}, err
	}
	if p.Record == nil {
		return review.Record{}, fmt.Errorf("%s %s: a %s proposal has no record to %s", verb, p.ID, p.Op, verb)
	}
	return *p.Record, nil
}

func cmdDecide(a *app, fs *flag.FlagSet, jsonOut bool) error {
	if err := needArgs(fs, 2, "PROPOSAL_ID and a verb"); err != nil {
		return err
	}
	verb := review.Verb(fs.Arg(1))
	switch verb {
	case review.Accept, review.Narrow, review.Edit, review.Reject, review.Delete, review.Defer:
	default:
		return usagef("decide: %q is not accept, narrow, edit, reject, delete or defer", verb)
	}
	tags, trigger, lemma := flagString(fs, "scope-tags"), flagString(fs, "trigger"), flagString(fs, "lemma")
	if (verb == review.Narrow || verb == review.Edit) && tags == "" && trigger == "" && lemma == "" {
		return usagef("decide %s: give the changed fields with --scope-tags, --trigger or --lemma", verb)
	}
	return a.decide(jsonOut, func(s *review.Store) (*review.Decision, error) {
		req := review.DecideRequest{Proposal: fs.Arg(0), Verb: verb, Operator: a.operator, Note: flagString(fs, "note")}
		if verb == review.Narrow || verb == review.Edit {
			rec, err := proposedRecord(s, req.Proposal, verb)
			if err != nil {
				return nil, err
			}
			if tags != "" {
				rec.Scope.Tags = splitList(tags)
			}
			if trigger != "" {
				rec.Trigger = trigger
			}
			if lemma != "" {
				rec.Lemma = lemma
			}
			req.Record = &rec
		}
		return s.Decide(a.ctx, req)
	})
}

func cmdMerge(a *app, fs *flag.FlagSet, jsonOut bool) error {
	if err := needArgs(fs, 1, "PROPOSAL_ID"); err != nil {
		return err
	}
	return a.decide(jsonOut, func(s *review.Store) (*review.Decision, error) {
		req := review.DecideRequest{Proposal: fs.Arg(0), Verb: review.Merge, With: splitList(flagString(fs, "with")),
			Operator: a.operator, Note: flagString(fs, "note")}
		if l := flagString(fs, "lemma"); l != "" {
			rec, err := proposedRecord(s, req.Proposal, review.Merge)
			if err != nil {
				return nil, err
			}
			rec.Lemma = l
			req.Record = &rec
		}
		return s.Decide(a.ctx, req)
	})
}

func cmdUndo(a *app, fs *flag.FlagSet, jsonOut bool) error {
	return a.decide(jsonOut, func(s *review.Store) (*review.Decision, error) {
		return s.Undo(a.ctx, fs.Arg(0), a.operator, flagString(fs, "note"))
	})
}

func probeCommands(jsonOut *bool) []*command {
	return []*command{
		{name: "env", args: "add NAME --sql FILE | --files DIR  |  list  |  rm NAME",
			help: "Manage the bank's environments (probe targets) in memreview.toml.",
			flags: func(fs *flag.FlagSet) {
				fs.BoolVar(jsonOut, "json", false, "print JSON (list)")
			},
			run: func(a *app, fs *flag.FlagSet) error { return cmdEnv(a, fs, *jsonOut) }},
		{name: "probe", args: "ENV INPUT...", help: "Run a read-only probe: SQL on a sql env; ls, read, grep, stat or csv on a files env.\nEverything after ENV is the probe's input.",
			flags: func(fs *flag.FlagSet) {
				fs.BoolVar(jsonOut, "json", false, "print the result as JSON")
				fs.Duration("timeout", probe.DefaultLimits().Timeout, "time limit")
				fs.Int("max-rows", probe.DefaultLimits().MaxRows, "row cap")
			},
			run: func(a *app, fs *flag.FlagSet) error { return cmdProbe(a, fs, *jsonOut) }},
		{name: "verify", args: "", help: "Re-run every active record's checks; flag records whose checks no longer hold.\nExits 1 when any check fails.",
			flags: func(fs *flag.FlagSet) {
				fs.BoolVar(jsonOut, "json", false, "print JSON")
				fs.String("env", "", "only checks on this environment")
			},
			run: func(a *app, fs *flag.FlagSet) error { return cmdVerify(a, fs, *jsonOut) }},
	}
}

func cmdEnv(a *app, fs *flag.FlagSet, jsonOut bool) error {
	if err := needArgs(fs, 1, "add, list or rm"); err != nil {
		return err
	}
	s, err := review.Open(a.bank, review.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	cfg, err := s.Config()
	if err != nil {
		return err
	}
	switch fs.Arg(0) {
	case "list":
		if jsonOut {
			return printJSON(a.stdout, cfg.Envs)
		}
		for _, e := range cfg.Envs {
			fmt.Fprintf(a.stdout, "%-12s %-6s %s\n", e.Name, e.Kind, e.Path)
		}
		return nil
	case "rm":
		if fs.NArg() != 2 {
			return usagef("env rm: give one NAME")
		}
		for i, e := range cfg.Envs {
			if e.Name == fs.Arg(1) {
				cfg.Envs = append(cfg.Envs[:i], cfg.Envs[i+1:]...)
				return s.SaveConfig(cfg)
			}
		}
		return fmt.Errorf("env rm: no environment named %q", fs.Arg(1))
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
		if _, dup := cfg.Env(name); dup {
			return fmt.Errorf("env add: %q is already declared (env rm it first)", name)
		}
		e := probe.Env{Name: name}
		switch {
		case *sqlPath != "" && *dirPath == "":
			e.Kind, e.Path = probe.KindSQL, *sqlPath
		case *dirPath != "" && *sqlPath == "":
			e.Kind, e.Path = probe.KindFiles, *dirPath
		default:
			return usagef("env add: give exactly one of --sql FILE or --files DIR")
		}
		abs, err := filepath.Abs(e.Path)
		if err != nil {
			return err
		}
		st, err := os.Stat(abs)
		if err != nil {
			return fmt.Errorf("env add %s: %w", name, err)
		}
		if st.IsDir() != (e.Kind == probe.KindFiles) {
			return fmt.Errorf("env add %s: %s is not a %s", name, abs, map[bool]string{true: "folder", false: "file"}[e.Kind == probe.KindFiles])
		}
		if rel, err := filepath.Rel(s.Dir(), abs); err == nil && !strings.HasPrefix(rel, "..") {
			e.Path = rel
		} else {
			e.Path = abs
		}
		cfg.Envs = append(cfg.Envs, e)
		if err := s.SaveConfig(cfg); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "added %s env %s → %s\n", e.Kind, name, e.Path)
		return nil
	}
	return usagef("env: %q is not add, list or rm", fs.Arg(0))
}

func cmdProbe(a *app, fs *flag.FlagSet, jsonOut bool) error {
	if err := needArgs(fs, 2, "ENV and INPUT"); err != nil {
		return err
	}
	s, err := review.Open(a.bank, review.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	env, err := s.ResolveEnv(fs.Arg(0))
	if err != nil {
		return err
	}
	lim := probe.DefaultLimits()
	lim.Timeout = fs.Lookup("timeout").Value.(flag.Getter).Get().(time.Duration)
	lim.MaxRows = flagInt(fs, "max-rows")
	res := probe.Run(a.ctx, env, strings.Join(fs.Args()[1:], " "), lim)
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

func cmdVerify(a *app, fs *flag.FlagSet, jsonOut bool) error {
	b, err := a.open(false)
	if err != nil {
		return err
	}
	defer b.Close()
	results, err := b.store.Verify(a.ctx, flagString(fs, "env"))
	if err != nil {
		return err
	}
	if err := b.sync(); err != nil {
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
		if err := printJSON(a.stdout, map[string]any{"checks": results, "suspect": suspects}); err != nil {
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

func worldCommands(jsonOut *bool) []*command {
	return []*command{
		{name: "sample", args: "DIR  |  gen [--records N] [--trajectories M] [--seed S] DIR",
			help:  "Write the sample world (a bank with its environments) to DIR,\nor, with gen, a synthetic bank of N records for trying memreview at scale.",
			flags: func(fs *flag.FlagSet) { fs.Int64("seed", sample.Seed, "generation seed") },
			run: func(a *app, fs *flag.FlagSet) error {
				if err := needArgs(fs, 1, "DIR"); err != nil {
					return err
				}
				if fs.Arg(0) == "gen" {
					return cmdSampleGen(a, fs.Args()[1:])
				}
				seed := fs.Lookup("seed").Value.(flag.Getter).Get().(int64)
				if err := sample.Generate(fs.Arg(0), seed); err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "wrote the sample world to %s (open it with: memreview --bank %s)\n", fs.Arg(0), fs.Arg(0))
				return nil
			}},
		{name: "demo", args: "", help: "Open the TUI on the sample world in your data directory.",
			flags: func(fs *flag.FlagSet) { fs.Bool("reset", false, "recreate the sample world first") },
			run: func(a *app, fs *flag.FlagSet) error {
				reset := fs.Lookup("reset").Value.String() == "true"
				dir, err := sample.MaterialiseDefault(reset)
				if err != nil {
					return err
				}
				a.bank = dir
				return runTUI(a, true)
			}},
		curateCommand(jsonOut),
	}
}

func cmdSampleGen(a *app, args []string) error {
	fs := flag.NewFlagSet("memreview sample gen", flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	opt := sample.SynthOptions{}
	fs.IntVar(&opt.Records, "records", 10000, "records to generate")
	fs.IntVar(&opt.Trajectories, "trajectories", 200, "trajectories to generate")
	fs.Int64Var(&opt.Seed, "seed", sample.Seed, "generation seed")
	if err := fs.Parse(args); err != nil {
		return usagef("sample gen: %v", err)
	}
	if fs.NArg() != 1 {
		return usagef("sample gen: give one DIR")
	}
	start := time.Now()
	if err := sample.Synth(fs.Arg(0), opt); err != nil {
		return err
	}
	s, err := review.Open(fs.Arg(0), review.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	stored := time.Since(start)
	ix, err := index.Open(filepath.Join(s.Dir(), review.IndexDir), s)
	if err != nil {
		return err
	}
	defer ix.Close()
	fmt.Fprintf(a.stdout, "wrote %d records and %d trajectories to %s in %s, indexed in %s\n",
		opt.Records, opt.Trajectories, fs.Arg(0), stored.Round(time.Millisecond), (time.Since(start) - stored).Round(time.Millisecond))
	return nil
}

// runTUI opens the TUI on a.bank, or on the sample world when no bank was
// named and ./.memreview does not exist.
func runTUI(a *app, isSample bool) error {
	if !isSample && !a.explicit {
		if _, err := os.Stat(filepath.Join(a.bank, review.DBFile)); err != nil {
			dir, err := sample.MaterialiseDefault(false)
			if err != nil {
				return err
			}
			a.bank, isSample = dir, true
		}
	}
	b, err := a.open(true)
	if err != nil {
		return err
	}
	defer b.Close()
	logf, err := os.OpenFile(filepath.Join(b.store.Dir(), "memreview.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cfg, err := b.store.Config()
	if err != nil {
		return err
	}
	set := curator.SettingsFromEnv(cfg.Curator, "")
	set.Operator = a.operator
	return ui.Run(common.Deps{
		Store: b.store, Index: b.index, BankName: filepath.Base(b.store.Dir()), IsSample: isSample,
		Operator: a.operator, Log: log.New(logf, "", log.LstdFlags), Curator: common.NewCurator(set),
	})
}

func curateCommand(jsonOut *bool) *command {
	return &command{name: "curate", args: "[--probe] [--model M] [--dry-run] TRAJ_ID... | --all-new",
		help: "Run the LLM curator over trajectories; its proposals join the review queue.\nThe model server is OPENAI_BASE_URL (any OpenAI-compatible API) with OPENAI_API_KEY.",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(jsonOut, "json", false, "print the run as JSON")
			fs.Bool("probe", false, "let the curator run read-only probes first")
			fs.String("model", "", "model name (default OPENAI_MODEL, else memreview.toml [curator] model)")
			fs.Bool("dry-run", false, "show the proposals without queueing them")
			fs.Bool("redistill", false, "distil again even when a trajectory has a packet")
			fs.Bool("all-new", false, "every trajectory that no proposal cites yet")
		},
		run: func(a *app, fs *flag.FlagSet) error {
			b, err := a.open(false)
			if err != nil {
				return err
			}
			defer b.Close()
			ids := fs.Args()
			if fs.Lookup("all-new").Value.String() == "true" {
				if ids, err = uncurated(b.store); err != nil {
					return err
				}
			}
			if len(ids) == 0 {
				return usagef("curate: name trajectories, or pass --all-new")
			}
			cfg, err := b.store.Config()
			if err != nil {
				return err
			}
			set := curator.SettingsFromEnv(cfg.Curator, flagString(fs, "model"))
			set.Operator = a.operator
			opt := curator.Options{
				Probe:     fs.Lookup("probe").Value.String() == "true",
				DryRun:    fs.Lookup("dry-run").Value.String() == "true",
				Redistill: fs.Lookup("redistill").Value.String() == "true",
			}
			deps := curator.Deps{Store: b.store, LLM: curator.NewLLM(set)}
			// memory_search uses the index when this process can hold it; when
			// another process does (the TUI), the curator scans the bank instead.
			if ix, err := index.Open(filepath.Join(b.store.Dir(), review.IndexDir), b.store); err == nil {
				b.index = ix
				deps.Search = curator.IndexSearcher{Ix: ix}
			}
			run, err := curator.Curate(a.ctx, deps, ids, opt)
			if err != nil {
				return err
			}
			if *jsonOut {
				return printJSON(a.stdout, run)
			}
			for _, p := range run.Proposals {
				lemma := ""
				if p.Record != nil {
					lemma = p.Record.Lemma
				}
				fmt.Fprintf(a.stdout, "%s  %-6s %s  %s\n", p.ID, p.Op, strings.Join(p.TargetIDs(), ","), oneLine(lemma+" — "+p.Rationale, 100))
			}
			fmt.Fprintf(a.stdout, "run %s: %d proposals, %d probes, %d steps, %d prompt + %d completion tokens, %s waiting for %s\n",
				run.ID, len(run.Proposals), len(run.ProbeRuns), run.Steps, run.PromptTokens, run.CompletionTokens, run.Latency.Round(time.Millisecond), run.Model)
			if opt.DryRun {
				fmt.Fprintln(a.stdout, "dry run: nothing was queued")
				return nil
			}
			return b.sync()
		}}
}

// uncurated lists trajectories that no proposal cites.
func uncurated(s *review.Store) ([]string, error) {
	ps, err := s.Proposals()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, p := range ps {
		seen[p.Trajectory] = true
	}
	ts, err := s.Trajectories()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range ts {
		if !seen[t.ID] {
			out = append(out, t.ID)
		}
	}
	return out, nil
}
