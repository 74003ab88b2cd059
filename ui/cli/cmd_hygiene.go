package cli

import (
	"flag"
	"fmt"

	"github.com/memreview/memreview/curator/hygiene"
	"github.com/memreview/memreview/review/app"
)

// hygieneCommand is `memreview hygiene`: queue proposals for near-duplicate,
// contradicting, stale and unused records.
func hygieneCommand(jsonOut *bool) *command {
	return &command{name: "hygiene", args: "",
		help: "Find near-duplicate, contradicting, stale (verify) and unused records and queue a proposal for each,\nwith the evidence in its rationale. A second run adds nothing while the first proposals are open.",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(jsonOut, "json", false, "print JSON")
			fs.String("env", "", "only records of this environment")
			fs.String("only", "", "only duplicates, contradictions, stale or unused")
			fs.Bool("llm", false, "let the curator model write merged lemmas ([curator] settings, OPENAI_* variables)")
			fs.Bool("dry-run", false, "show the findings, queue nothing")
		},
		run: func(a *cmdline, fs *flag.FlagSet) error {
			kind, err := hygiene.ParseKind(flagString(fs, "only"))
			if err != nil {
				return usageError{err.Error()}
			}
			svc, err := a.open()
			if err != nil {
				return err
			}
			defer svc.Close()
			dry := flagString(fs, "dry-run") == "true"
			rep, saved, err := svc.Hygiene(a.ctx, app.HygieneOptions{Env: flagString(fs, "env"), Only: kind,
				LLM: flagString(fs, "llm") == "true", DryRun: dry})
			if err != nil {
				return err
			}
			if *jsonOut {
				return printJSON(a.stdout, map[string]any{"run": rep.RunID, "findings": nonNil(rep.Findings), "queued": nonNil(saved)})
			}
			ids := map[string]string{}
			for _, p := range saved {
				ids[p.Fingerprint] = p.ID
			}
			for _, f := range rep.Findings {
				state := ids[f.Fingerprint]
				switch {
				case f.Open != "":
					state = "already open as " + f.Open
				case dry:
					state = "dry run"
				}
				fmt.Fprintf(a.stdout, "%-14s %-6s %-22s %s\n  %s\n", f.Kind, f.Proposal.Op, state, oneLine(fmt.Sprint(f.Records), 60), f.Proposal.Rationale)
			}
			fmt.Fprintf(a.stdout, "%d findings, %d queued\n", len(rep.Findings), len(saved))
			return nil
		}}
}
