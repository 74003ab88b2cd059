package cli

import (
	"fmt"

	"github.com/memreview/memreview/review/app"
)

func liveCommand() *command {
	return &command{name: "live", args: "PROPOSAL_ID",
		summary: "Run a proposal's probe runs and its record's checks live, as p does on the review screen, and save each result on the proposal.",
		help:    "Accepting the proposal then takes the latest live run of each check as that check's expected result.",
		json:    true,
		run: func(c *call, args []string) error {
			if err := needArgs("live", args, 1, "PROPOSAL_ID"); err != nil {
				return err
			}
			svc, err := c.service()
			if err != nil {
				return err
			}
			lived, err := svc.RunLiveAll(c.ctx, args[0], c.operator)
			if c.json && err == nil {
				return printJSON(c.stdout, nonNil(lived))
			}
			for _, l := range lived {
				fmt.Fprintf(c.stdout, "%-10s %-9s %s  %s: %s\n", l.Run.ID, l.Verdict, liveWhat(l), l.Item.Expect.Env, oneLine(l.Item.Expect.Input, 60))
			}
			return err
		}}
}

// liveWhat names what a live run repeated: "run_0003" or "check 1".
func liveWhat(l app.Lived) string {
	if l.Item.Check > 0 {
		return fmt.Sprintf("check %d", l.Item.Check)
	}
	return l.Item.Run
}
