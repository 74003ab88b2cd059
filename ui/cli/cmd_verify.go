package cli

import (
	"flag"
	"fmt"
	"sort"

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
			svc, err := c.open()
			if err != nil {
				return err
			}
			defer svc.Close()
			results, err := svc.Verify(c.ctx, env)
			if err != nil {
				return err
			}
			failed := map[string]bool{}
			for _, r := range results {
				if !review.Holds(r.Verdict) {
					failed[r.RecordID] = true
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
					fmt.Fprintf(c.stdout, "%-11s %s #%d  %s: %s\n", r.Verdict, r.RecordID, r.Index+1, r.Env, oneLine(r.Input, 70))
				}
				fmt.Fprintf(c.stdout, "%d checks, %d records suspect\n", len(results), len(failed))
			}
			if len(failed) > 0 {
				return fmt.Errorf("%d records have checks that no longer hold", len(failed))
			}
			return nil
		}}
}
