package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
)

func showCommand() *command {
	return &command{name: "show", args: "ID",
		summary: "Show a record (with its checks, evidence, worth and who retrieved it), a proposal, a decision, a trajectory or a probe run.",
		json:    true,
		run: func(c *call, args []string) error {
			if err := needArgs("show", args, 1, "ID"); err != nil {
				return err
			}
			s, err := c.service()
			if err != nil {
				return err
			}
			id := args[0]
			if r, err := s.Record(id); err == nil {
				runs, _ := s.ProbeRunsFor("record", id)
				checks, _ := s.CheckResults(id)
				used, _ := s.RetrievedBy(id)
				worth, _ := s.Worth(id)
				if c.json {
					return printJSON(c.stdout, map[string]any{"record": r, "evidence": nonNil(runs), "check_results": nonNil(checks), "retrieved_by": nonNil(used), "worth": worth})
				}
				writeRecord(c.stdout, r)
				if chain, _ := s.MergeChain(id); len(chain) > 0 {
					fmt.Fprintf(c.stdout, "merged into  %s (now: %s)\n", strings.Join(chain, " → "), chain[len(chain)-1])
				}
				fmt.Fprintf(c.stdout, "worth        %s\n", worth)
				writeChecks(c.stdout, r, checks)
				for _, run := range runs {
					fmt.Fprintf(c.stdout, "evidence     %s  %s: %s\n", run.ID, run.Result.Env, oneLine(run.Result.Input, 70))
				}
				for _, u := range used {
					fmt.Fprintf(c.stdout, "retrieved by %s  %s\n", u.Trajectory, oneLine(u.Outcome.Words(), 60))
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
			return printJSON(c.stdout, v)
		}}
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
		parts := []string{}
		if p.Trajectory != "" {
			parts = append(parts, p.Trajectory)
		}
		if p.Steps != nil {
			parts = append(parts, fmt.Sprintf("steps %d-%d", p.Steps.From, p.Steps.To))
		}
		if len(p.MergedFrom) > 0 {
			parts = append(parts, "merged from "+strings.Join(p.MergedFrom, ", "))
		}
		if p.MergedInto != "" {
			parts = append(parts, "merged into "+p.MergedInto)
		}
		fmt.Fprintf(w, "provenance   %s\n", strings.Join(parts, " · "))
	}
	fmt.Fprintf(w, "updated      %s\n", r.Updated.Format("2006-01-02 15:04:05"))
}

// writeChecks lists a record's checks: each one's probe, what it expects
// and the verdict of its last verify of this version.
func writeChecks(w io.Writer, r *review.Record, results []review.CheckResult) {
	if len(r.Checks) == 0 {
		fmt.Fprintln(w, "checks       none")
	}
	for i, ch := range r.Checks {
		fmt.Fprintf(w, "check %-2d     %s: %s\n", i+1, ch.Env, oneLine(ch.Input, 70))
		fmt.Fprintf(w, "  expects    %s\n", oneLine(common.Expects(ch), 90))
		last := "not verified yet (memreview verify)"
		for _, cr := range results {
			if cr.Index == i && (cr.Version == 0 || cr.Version == r.Version) {
				last = fmt.Sprintf("%s at %s", verdictWords(cr.Verdict), cr.At.UTC().Format("2006-01-02 15:04"))
				if cr.Now.Error != "" {
					last += ": " + oneLine(cr.Now.Error, 70)
				}
			}
		}
		fmt.Fprintf(w, "  verify     %s\n", last)
	}
}
