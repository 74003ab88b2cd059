// The import of other tools' files: `memreview formats`, `import
// trajectories` through the format adapters (review/formats), `import
// memories` (existing banks as pending create proposals, or records with
// --accept) and `import --dry-run`.

package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/formats"
)

// importFlags declares import's flags.
func importFlags(fs *flag.FlagSet) {
	fs.String("format", "", "trajectories or memories: read every FILE in this format (see 'memreview formats'); default: detected from each file's shape")
	fs.String("env", "", "memories: scope every imported record to this environment")
	fs.Bool("accept", false, "memories: import as records at once (one audit entry each) instead of pending proposals")
	fs.Bool("dry-run", false, "trajectories or memories: show what would be imported (counts per file, the first run's steps); write nothing")
}

func formatsCommand() *command {
	return &command{name: "formats", args: "", help: "List the trajectory and memory-bank formats import reads, with what each reads.",
		run: func(a *cmdline, fs *flag.FlagSet) error {
			tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
			for _, k := range []formats.Kind{formats.Trajectories, formats.Memories} {
				fmt.Fprintf(tw, "%s (import %s):\n", k, k)
				for _, f := range formats.Formats(k) {
					fmt.Fprintf(tw, "  %s\t%s\n", f.Name, f.About)
				}
			}
			tw.Flush()
			fmt.Fprintln(a.stdout, "\nFormats are detected from each file's shape; --format NAME forces one. See docs/FORMATS.md.")
			return nil
		}}
}

// importAdapted runs `import trajectories` and `import memories` (and
// refuses the adapter flags on records and proposals); done is false when
// cmdImport should go on with its own kinds.
func importAdapted(a *cmdline, fs *flag.FlagSet) (done bool, err error) {
	kind := fs.Arg(0)
	if kind == "trajectories" || kind == "memories" {
		// Flags may follow the kind (import memories --accept FILE), not the files.
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return true, usagef("import %s: %v", kind, err)
		}
		for _, arg := range fs.Args() {
			if name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "="); strings.HasPrefix(arg, "-") && name != "" && fs.Lookup(name) != nil {
				return true, usagef("import %s: flag %s comes after the files; put it before them", kind, arg)
			}
		}
	}
	args := fs.Args()
	if kind == "trajectories" || kind == "memories" {
		args = append([]string{kind}, args...)
	}
	format, dry := flagString(fs, "format"), flagString(fs, "dry-run") == "true"
	if kind != "trajectories" && kind != "memories" {
		if format != "" || dry || flagString(fs, "env") != "" || flagString(fs, "accept") == "true" {
			return true, usagef("import: --format, --env, --accept and --dry-run are for trajectories and memories, not %s", kind)
		}
		return false, nil
	}
	if len(args) < 2 {
		return true, usagef("import %s: missing a FILE", kind)
	}
	var forced *formats.Format
	if format != "" {
		f, ok := formats.Lookup(format)
		if !ok || string(f.Kind) != kind {
			return true, usagef("import %s: no format %q (formats for %s: %s)", kind, format, kind, formats.Names(formats.Kind(kind)))
		}
		forced = f
	}
	if kind == "trajectories" && (flagString(fs, "env") != "" || flagString(fs, "accept") == "true") {
		return true, usagef("import trajectories: --env and --accept are for memories")
	}
	var inputs []*formats.Input
	for _, name := range args[1:] {
		r, file, err := a.openInput(name)
		if err != nil {
			return true, err
		}
		data, err := io.ReadAll(io.LimitReader(r, review.MaxTrajectoryLineBytes+1))
		r.Close()
		if err != nil {
			return true, fmt.Errorf("%s: read: %w", file, err)
		}
		if len(data) > review.MaxTrajectoryLineBytes {
			return true, fmt.Errorf("%s: over %d MiB; nothing was imported", file, review.MaxTrajectoryLineBytes>>20)
		}
		inputs = append(inputs, formats.NewInput(file, data))
	}
	if kind == "trajectories" {
		return true, importTrajectories(a, inputs, forced, dry)
	}
	return true, importMemories(a, inputs, forced, flagString(fs, "env"), flagString(fs, "accept") == "true", dry)
}

func importTrajectories(a *cmdline, inputs []*formats.Input, forced *formats.Format, dry bool) error {
	var all []review.Trajectory
	var reps []*formats.Report
	from := map[string]origin{}
	for _, in := range inputs {
		ts, rep, err := formats.ReadTrajectories(in, forced)
		if err != nil {
			return fmt.Errorf("%w; nothing was imported", err)
		}
		for i, t := range ts {
			var pl formats.Place
			if i < len(rep.Places) {
				pl = rep.Places[i]
			}
			o := origin{in.File, pl, i + 1, rep.Format}
			if first, dup := from[t.ID]; dup {
				return fmt.Errorf("%s: trajectory id %q is also in %s; rename one file (generated ids come from the file name); nothing was imported", o, t.ID, first)
			}
			from[t.ID] = o
		}
		all = append(all, ts...)
		reps = append(reps, rep)
	}
	b, err := a.open()
	if err != nil {
		return err
	}
	defer b.Close()
	for _, t := range all {
		if _, err := b.Trajectory(t.ID); err == nil {
			return fmt.Errorf("%s: trajectory %s is already in the bank (proposals cite its steps, so it is not replaced); nothing was imported", from[t.ID], t.ID)
		}
	}
	printReports(a.stdout, reps)
	if dry {
		if len(all) > 0 {
			printSteps(a.stdout, &all[0])
		}
		fmt.Fprintf(a.stdout, "dry run: %d trajectories would be imported; nothing was written\n", len(all))
		return nil
	}
	if err := b.SubmitTrajectories(all); err != nil {
		return fmt.Errorf("import trajectories: %w; nothing was imported", err)
	}
	fmt.Fprintf(a.stdout, "imported %d trajectories\n", len(all))
	return nil
}

// origin is where a trajectory was read: file, line and id field when the
// reader knows them, else the run's number in the file.
type origin struct {
	file   string
	place  formats.Place
	run    int
	format string
}

func (o origin) String() string {
	if o.place.Line > 0 {
		return fmt.Sprintf("%s:%d: field %q", o.file, o.place.Line, firstField(o.place.Field))
	}
	return fmt.Sprintf("%s: run %d (its id comes from the %s)", o.file, o.run, idOrigin(o.format))
}

func idOrigin(format string) string {
	switch format {
	case "swe-agent", "openhands":
		return "file name"
	case "otel", "langfuse":
		return "trace or conversation id"
	case "inspect-ai":
		return "file name, sample id and epoch"
	case "atif":
		return "session_id"
	}
	return "file"
}

func firstField(f string) string {
	if f == "" {
		return "id"
	}
	return f
}

func importMemories(a *cmdline, inputs []*formats.Input, forced *formats.Format, env string, accept, dry bool) error {
	var props []review.Proposal
	var reps []*formats.Report
	for _, in := range inputs {
		ms, rep, err := formats.ReadMemories(in, forced, env)
		if err != nil {
			return fmt.Errorf("%w; nothing was imported", err)
		}
		for _, m := range ms {
			props = append(props, m.Proposal)
		}
		reps = append(reps, rep)
	}
	b, err := a.open()
	if err != nil {
		return err
	}
	defer b.Close()
	printReports(a.stdout, reps)
	if dry {
		for i, p := range props {
			if i == 5 {
				fmt.Fprintf(a.stdout, "  … %d more\n", len(props)-5)
				break
			}
			fmt.Fprintf(a.stdout, "  %s\n", oneLine(escapeText(p.Record.Lemma), 100))
		}
		fmt.Fprintf(a.stdout, "dry run: %d memories would be queued as create proposals; nothing was written\n", len(props))
		return nil
	}
	if err := b.AddProposals(props, nil); err != nil {
		return fmt.Errorf("import memories: %w; nothing was imported", err)
	}
	if !accept {
		fmt.Fprintf(a.stdout, "queued %d memories as pending create proposals (review them with the TUI, 'memreview queue' and 'decide')\n", len(props))
		return nil
	}
	for i, p := range props {
		if _, err := b.Decide(context.Background(), review.DecideRequest{Proposal: p.ID, Verb: review.Accept, Operator: a.operator, Note: "import memories --accept"}); err != nil {
			return fmt.Errorf("accept %s (%d of %d): %w; the %d before it are records, the rest stay pending proposals", p.ID, i+1, len(props), err, i)
		}
	}
	fmt.Fprintf(a.stdout, "imported %d memories as records (one audit entry each)\n", len(props))
	return nil
}

func printReports(w io.Writer, reps []*formats.Report) {
	for _, r := range reps {
		if r.Memories > 0 || r.Runs == 0 {
			fmt.Fprintf(w, "%s (%s): %d memories\n", escapeText(r.File), r.Format, r.Memories)
		} else {
			fmt.Fprintf(w, "%s (%s): %d runs, %d steps, %d tool calls, %d results linked, %d outcomes\n",
				escapeText(r.File), r.Format, r.Runs, r.Steps, r.ToolCalls, r.Linked, r.Outcomes)
		}
		for _, s := range r.SkipLines() {
			fmt.Fprintf(w, "  skipped %s\n", s)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(w, "  note: %s\n", escapeText(n))
		}
	}
}

func printSteps(w io.Writer, t *review.Trajectory) {
	fmt.Fprintf(w, "first run %s (%d steps, model %s):\n", escapeText(t.ID), len(t.Steps), orNone(t.Model))
	for i, s := range t.Steps {
		if i == 40 {
			fmt.Fprintf(w, "  … %d more steps\n", len(t.Steps)-40)
			break
		}
		fmt.Fprintf(w, "  %3d %-9s %s\n", i+1, s.Role, oneLine(escapeText(s.Content), 90))
		for _, c := range s.ToolCalls {
			fmt.Fprintf(w, "      → %s %s ⇒ %s\n", escapeText(c.Name), oneLine(escapeText(c.Arguments), 50), oneLine(escapeText(c.Result), 40))
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "not given"
	}
	return s
}

// escapeText makes control characters visible so that imported text
// cannot drive the terminal.
func escapeText(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return '�'
		}
		return r
	}, s)
}
