package cli

import (
	"flag"
	"fmt"
	"sort"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

func verifyCommand() *command {
	var env string
	return &command{name: "verify", args: "",
		summary: "Re-run every active record's checks and flag the records whose checks no longer hold; exits 1 when any fails.",
		json:    true,
		flags:   func(fs *flag.FlagSet) { fs.StringVar(&env, "env", "", "only checks on this environment") },
		run: func(c *call, args []string) error {
			if err := noArgs("verify", args); err != nil {
				return err
			}
			svc, err := c.service()
			if err != nil {
				return err
			}
			results, err := svc.Verify(c.ctx, env)
			if err != nil {
				return err
			}
			failed := map[string]bool{}
			unbased := 0
			for _, r := range results {
				if review.Fails(r.Verdict) {
					failed[r.RecordID] = true
				}
				if r.Verdict == probe.NoBaseline {
					unbased++
				}
			}
			if c.json {
				suspects := make([]string, 0, len(failed))
				for id := range failed {
					suspects = append(suspects, id)
				}
				sort.Strings(suspects)
				if err := printJSON(c.stdout, map[string]any{"checks": nonNil(results), "suspect": suspects}); err != nil {
					return err
				}
			} else {
				for _, r := range results {
					fmt.Fprintf(c.stdout, "%-11s %s #%d  %s: %s\n", verdictWords(r.Verdict), r.RecordID, r.Index+1, r.Env, oneLine(r.Input, 70))
				}
				fmt.Fprintf(c.stdout, "%d checks, %d records suspect\n", len(results), len(failed))
				if unbased > 0 {
					fmt.Fprintf(c.stdout, "%d checks have no baseline: 'memreview rebaseline RECORD_ID' takes what they return now as their expected output\n", unbased)
				}
			}
			if len(failed) > 0 {
				return fmt.Errorf("%d records have checks that no longer hold", len(failed))
			}
			return nil
		}}
}

// verdictWords is a verify verdict as the text output prints it: as it is,
// but "no baseline" for a check with nothing to compare with (it neither
// holds nor fails).
func verdictWords(v probe.Verdict) string {
	if v == probe.NoBaseline {
		return "no baseline"
	}
	return string(v)
}
