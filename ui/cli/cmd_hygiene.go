package cli

import (
	"flag"
	"fmt"

	"github.com/memreview/memreview/review/app"
)

// hygieneCommand is `memreview hygiene`: queue proposals for near-duplicate,
// contradicting, stale and unused records.
func hygieneCommand() *command {
	var env, only string
	var llm, dry, incr bool
	return &command{name: "hygiene", args: "",
		summary: "Find near-duplicate, contradicting, stale and unused records and queue a proposal for each, with the evidence in its rationale.",
		help: "A second run adds nothing while the first run's proposals are open, nor a finding rejected before while its records are unchanged.\n" +
			"--only poisoning screens every active record as proposals are screened (it runs only when asked):\n" +
			"a record that steers its reader, moves data out or hides text is proposed for deletion; one that\n" +
			"only holds a secret, for an update with the secret replaced by its marker.\n" +
			"--incremental compares only the records changed since the last completed full run (as H in the TUI);\n" +
			"with no earlier run, on a team bank or past 50,000 changes it runs in full.",
		json: true,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&env, "env", "", "only records of this environment")
			fs.StringVar(&only, "only", "", "only duplicates, contradictions, stale, unused or poisoning")
			fs.BoolVar(&llm, "llm", false, "let the curator model write merged lemmas ([curator] settings, OPENAI_* variables)")
			fs.BoolVar(&dry, "dry-run", false, "show the findings, queue nothing")
			fs.BoolVar(&incr, "incremental", false, "compare only the records changed since the last completed run")
		},
		run: func(c *call, args []string) error {
			if err := noArgs("hygiene", args); err != nil {
				return err
			}
			kind, err := app.ParseHygieneKind(only)
			if err != nil {
				return usageError{err.Error()}
			}
			svc, err := c.service()
			if err != nil {
				return err
			}
			rep, saved, err := svc.Hygiene(c.ctx, app.HygieneOptions{Env: env, Only: kind, LLM: llm, DryRun: dry, Incremental: incr})
			if err != nil {
				return err
			}
			if c.json {
				return printJSON(c.stdout, map[string]any{"run": rep.RunID, "incremental": rep.Incremental, "changed": rep.Changed,
					"findings": nonNil(rep.Findings), "queued": nonNil(saved)})
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
				case f.Rejected != "":
					state = "rejected as " + f.Rejected
				case dry:
					state = "dry run"
				}
				fmt.Fprintf(c.stdout, "%-14s %-6s %-22s %s\n  %s\n", f.Kind, f.Proposal.Op, state, oneLine(fmt.Sprint(f.Records), 60), f.Proposal.Rationale)
			}
			if rep.Incremental {
				fmt.Fprintf(c.stdout, "incremental: %d changed records compared\n", rep.Changed)
			}
			fmt.Fprintf(c.stdout, "%d findings, %d queued\n", len(rep.Findings), len(saved))
			return nil
		}}
}
