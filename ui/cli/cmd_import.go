package cli

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

func importCommand() *command {
	var opt app.ImportOptions
	return &command{name: "import", args: "records|proposals|trajectories|memories FILE...", bulkWrite: true,
		summary: "Import records, proposals, trajectories or another tool's memory bank; the whole input is checked first and nothing is written on any error.",
		help: "records and proposals are JSON Lines; trajectories may be in any format 'memreview formats' lists;\n" +
			"memories (mem0, MCP memory, Letta, AGENTS.md, CLAUDE.md, a Claude Code memory folder, .cursor/rules, …) arrive\n" +
			"as pending create proposals (a folder: every .md and .mdc file below it). '-' reads stdin.",
		interspersed: true,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&opt.Format, "format", "", "trajectories or memories: read every FILE in this format (see 'memreview formats'); default: detected from each file's shape")
			fs.StringVar(&opt.Env, "env", "", "memories: scope every imported record to this environment; trajectories: the environment every run worked in")
			fs.BoolVar(&opt.Accept, "accept", false, "memories: import as records at once (one audit entry each) instead of pending proposals")
			fs.BoolVar(&opt.DryRun, "dry-run", false, "show what would be imported (counts per file, the first run's steps); write nothing")
		},
		run: func(c *call, args []string) error {
			if err := needArgs("import", args, 2, "what to import and a FILE"); err != nil {
				return err
			}
			kind, files := args[0], args[1:]
			switch kind {
			case app.KindRecords, app.KindProposals, app.KindTrajectories, app.KindMemories:
			default:
				return usagef("import: %q is not records, proposals, trajectories or memories", kind)
			}
			if kind != app.KindTrajectories && kind != app.KindMemories && (opt.Format != "" || opt.Env != "" || opt.Accept) {
				return usagef("import: --format, --env and --accept are for trajectories and memories, not %s", kind)
			}
			if kind == app.KindTrajectories && opt.Accept {
				return usagef("import trajectories: --accept is for memories")
			}
			if err := knownFormat(kind, opt.Format); err != nil {
				return err
			}
			svc, err := c.service()
			if err != nil {
				return err
			}
			if kind == app.KindMemories {
				if files, err = instructionFiles(files); err != nil {
					return err
				}
			}
			var inputs []app.ImportInput
			for _, name := range files {
				r, file, err := c.openInput(name)
				if err != nil {
					return err
				}
				defer r.Close()
				inputs = append(inputs, app.ImportInput{Name: file, R: r})
			}
			opt.Actor = c.operator
			res, err := svc.Import(c.ctx, kind, inputs, opt)
			if err != nil {
				return fmt.Errorf("%w; nothing was imported", err)
			}
			printReports(c.stdout, res.Reports)
			printKnown(c.stdout, res.Known)
			switch {
			case opt.DryRun:
				printDryRun(c.stdout, res)
			case kind == app.KindMemories && opt.Accept:
				fmt.Fprintf(c.stdout, "imported %d memories as records (one audit entry each)\n", res.Count)
			case kind == app.KindMemories:
				fmt.Fprintf(c.stdout, "queued %d memories as pending create proposals (review them with the TUI, 'memreview queue' and 'decide')\n", res.Count)
			default:
				fmt.Fprintf(c.stdout, "imported %d %s\n", res.Count, kind)
			}
			if res.Flagged > 0 {
				what := "of them are flagged by the poisoning screen: see 'memreview queue --flagged'"
				if kind == app.KindRecords {
					what = "of the records hold text the poisoning screen flags: see 'memreview hygiene --only poisoning'"
				}
				fmt.Fprintf(c.stdout, "%d %s\n", res.Flagged, what)
			}
			return nil
		}}
}

// instructionFiles replaces each folder among names (a Claude Code memory
// folder, .cursor/rules) with the .md and .mdc files below it, in name
// order; hidden folders below it are left out.
func instructionFiles(names []string) ([]string, error) {
	var out []string
	for _, name := range names {
		st, err := os.Stat(name)
		if name == "-" || err != nil || !st.IsDir() {
			out = append(out, name)
			continue
		}
		var found []string
		err = filepath.WalkDir(name, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != name && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if ext := strings.ToLower(filepath.Ext(p)); !d.IsDir() && (ext == ".md" || ext == ".mdc") {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("import memories: %w", err)
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("import memories: %s holds no .md or .mdc file", name)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// knownFormat refuses a --format that import does not read for kind.
func knownFormat(kind, format string) error {
	if format == "" {
		return nil
	}
	var names []string
	for _, f := range app.Formats(kind) {
		if f.Name == format {
			return nil
		}
		names = append(names, f.Name)
	}
	return usagef("import %s: no format %q (formats for %s: %s)", kind, format, kind, strings.Join(names, ", "))
}

func printDryRun(w io.Writer, res *app.ImportResult) {
	switch res.Kind {
	case app.KindTrajectories:
		if len(res.Trajectories) > 0 {
			printSteps(w, &res.Trajectories[0])
		}
		fmt.Fprintf(w, "dry run: %d trajectories would be imported; nothing was written\n", res.Count)
	case app.KindMemories:
		for i, p := range res.Proposals {
			if i == 5 {
				fmt.Fprintf(w, "  … %d more\n", len(res.Proposals)-5)
				break
			}
			fmt.Fprintf(w, "  %s\n", oneLine(p.Record.Lemma, 100))
		}
		fmt.Fprintf(w, "dry run: %d memories would be queued as create proposals; nothing was written\n", res.Count)
	default:
		fmt.Fprintf(w, "dry run: %d %s would be imported; nothing was written\n", res.Count, res.Kind)
	}
}

func printReports(w io.Writer, reps []*app.FormatReport) {
	for _, r := range reps {
		if r.Memories > 0 || r.Runs == 0 {
			fmt.Fprintf(w, "%s (%s): %d memories\n", r.File, r.Format, r.Memories)
		} else {
			fmt.Fprintf(w, "%s (%s): %d runs, %d steps, %d tool calls, %d results linked, %d outcomes\n",
				r.File, r.Format, r.Runs, r.Steps, r.ToolCalls, r.Linked, r.Outcomes)
		}
		for _, s := range r.SkipLines() {
			fmt.Fprintf(w, "  skipped %s\n", s)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
	}
}

func printSteps(w io.Writer, t *review.Trajectory) {
	model := t.Model
	if model == "" {
		model = "not given"
	}
	fmt.Fprintf(w, "first run %s (%d steps, model %s):\n", t.ID, len(t.Steps), model)
	for i, s := range t.Steps {
		if i == 40 {
			fmt.Fprintf(w, "  … %d more steps\n", len(t.Steps)-40)
			break
		}
		fmt.Fprintf(w, "  %3d %-9s %s\n", i+1, s.Role, oneLine(s.Content, 90))
		for _, tc := range s.ToolCalls {
			fmt.Fprintf(w, "      → %s %s ⇒ %s\n", tc.Name, oneLine(tc.Arguments, 50), oneLine(tc.Result, 40))
		}
	}
}

// printKnown lists the memories an import left out because the bank (or
// an earlier line) already has them.
func printKnown(w io.Writer, known []app.KnownMemory) {
	for i, k := range known {
		if i == 5 {
			fmt.Fprintf(w, "  … %d more left out\n", len(known)-5)
			break
		}
		at := k.File
		if k.Line > 0 {
			at = fmt.Sprintf("%s:%d", k.File, k.Line)
		}
		if k.Proposal != "" {
			fmt.Fprintf(w, "  left out %s: already in the bank as %s (%s)\n", at, k.Proposal, k.Status)
		} else {
			fmt.Fprintf(w, "  left out %s: the same memory as %s\n", at, k.AlsoAt)
		}
	}
	if len(known) > 0 {
		fmt.Fprintf(w, "%d memories were already in the bank or repeated, and were left out\n", len(known))
	}
}
