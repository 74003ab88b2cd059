package cli

import (
	"fmt"

	"github.com/memreview/memreview/review/app"
)

func initCommand() *command {
	return &command{name: "init", args: "",
		summary: "Create an empty bank in the --bank folder, or make an empty PostgreSQL database a team bank.",
		run: func(c *call, args []string) error {
			if err := noArgs("init", args); err != nil {
				return err
			}
			svc, err := app.Create(c.ctx, c.bank, app.Options{Operator: c.operator})
			if err != nil {
				return err
			}
			defer svc.Close()
			info := svc.Info()
			if info.Team {
				fmt.Fprintf(c.stdout, "bank %s ready on %s (this machine's index: %s; your environments: %s)\n",
					info.ID, info.Where, info.IndexDir, info.ConfigFile)
				return nil
			}
			fmt.Fprintf(c.stdout, "created bank %s\n", info.Dir)
			return nil
		}}
}
