package cli

import "fmt"

func reindexCommand() *command {
	return &command{name: "reindex", args: "",
		summary: "Rebuild the search index from the bank (losing the index loses nothing).",
		run: func(c *call, args []string) error {
			if err := noArgs("reindex", args); err != nil {
				return err
			}
			svc, err := c.service()
			if err != nil {
				return err
			}
			n, err := svc.Reindex()
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "reindexed %d documents\n", n)
			return nil
		}}
}
