package cli

import "github.com/memreview/memreview/review/app"

func exportCommand() *command {
	return &command{name: "export", args: "records|proposals|decisions|trajectories",
		summary: "Write the bank's records, proposals, decisions or trajectories as JSON Lines on stdout.",
		exact:   true,
		run: func(c *call, args []string) error {
			if err := needArgs("export", args, 1, "what to export"); err != nil {
				return err
			}
			switch args[0] {
			case app.KindRecords, app.KindProposals, app.KindDecisions, app.KindTrajectories:
			default:
				return usagef("export: %q is not records, proposals, decisions or trajectories", args[0])
			}
			svc, err := c.open()
			if err != nil {
				return err
			}
			defer svc.Close()
			return svc.Export(args[0], c.stdout)
		}}
}
