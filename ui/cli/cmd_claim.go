package cli

import (
	"flag"
	"fmt"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

// claimCommand claims a proposal for the operator, or releases the claim:
// what the TUI does when a proposal is opened and left.
func claimCommand() *command {
	return &command{name: "claim", args: "PROPOSAL_ID",
		help: "Claim a proposal for --operator (others see \"being reviewed by NAME\" and skip it), renewing\n" +
			"the claim you hold; --release gives it up. A claim lapses after --ttl unless renewed.",
		flags: func(fs *flag.FlagSet) {
			fs.Duration("ttl", review.ClaimTTL, "how long the claim lasts")
			fs.Bool("release", false, "release your claim instead")
		},
		run: func(a *cmdline, fs *flag.FlagSet) error {
			if err := needArgs(fs, 1, "PROPOSAL_ID"); err != nil {
				return err
			}
			svc, err := a.open()
			if err != nil {
				return err
			}
			defer svc.Close()
			id := fs.Arg(0)
			if fs.Lookup("release").Value.String() == "true" {
				if err := svc.Backend().Release(id, a.operator); err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "released %s\n", id)
				return nil
			}
			c, err := svc.Backend().Claim(id, a.operator, fs.Lookup("ttl").Value.(flag.Getter).Get().(time.Duration))
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s is yours until %s\n", c.Proposal, c.Expires.Local().Format(time.TimeOnly))
			return nil
		}}
}

// claimedBy maps each claimed open proposal to the note the queue shows.
func claimedBy(svc *app.Service) (map[string]string, error) {
	claims, err := svc.Backend().Claims()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, c := range claims {
		out[c.Proposal] = "  (being reviewed by " + c.Operator + ")"
	}
	return out, nil
}
