package cli

import (
	"flag"
	"fmt"
	"time"

	"github.com/memreview/memreview/review"
)

// claimCommand claims a proposal for the operator, or releases the claim:
// what the TUI does when a proposal is opened and left.
func claimCommand() *command {
	var ttl time.Duration
	var release bool
	return &command{name: "claim", args: "PROPOSAL_ID",
		summary: "Claim a proposal for --operator, so that others see who is reviewing it and skip it; --release gives it up.",
		help:    "Claiming renews a claim you hold. A claim lapses after --ttl unless renewed.",
		flags: func(fs *flag.FlagSet) {
			fs.DurationVar(&ttl, "ttl", review.ClaimTTL, "how long the claim lasts")
			fs.BoolVar(&release, "release", false, "release your claim instead")
		},
		run: func(c *call, args []string) error {
			if err := needArgs("claim", args, 1, "PROPOSAL_ID"); err != nil {
				return err
			}
			svc, err := c.service()
			if err != nil {
				return err
			}
			id := args[0]
			if release {
				if err := svc.Release(id, c.operator); err != nil {
					return err
				}
				fmt.Fprintf(c.stdout, "released %s\n", id)
				return nil
			}
			cl, err := svc.Claim(id, c.operator, ttl)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "%s is yours until %s\n", cl.Proposal, cl.Expires.Local().Format(time.TimeOnly))
			return nil
		}}
}
