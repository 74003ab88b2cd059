package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

func queueCommand() *command {
	return &command{name: "queue", args: "",
		summary: "List the open proposals, with who is reviewing each.",
		json:    true,
		run: func(c *call, args []string) error {
			if err := noArgs("queue", args); err != nil {
				return err
			}
			svc, err := c.open()
			if err != nil {
				return err
			}
			defer svc.Close()
			q, err := svc.Queue()
			if err != nil {
				return err
			}
			if c.json {
				return printJSON(c.stdout, nonNil(q))
			}
			claims, err := svc.Claims()
			if err != nil {
				return err
			}
			reviewers := map[string]string{}
			for _, cl := range claims {
				reviewers[cl.Proposal] = "  (being reviewed by " + cl.Operator + ")"
			}
			tw := tabwriter.NewWriter(c.stdout, 2, 4, 2, ' ', 0)
			for _, p := range q {
				lemma := ""
				if p.Record != nil {
					lemma = p.Record.Lemma
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s%s\n", p.ID, p.Status, p.Op, targetList(p.TargetIDs()), oneLine(lemma, 80), reviewers[p.ID])
			}
			fmt.Fprintf(tw, "%d open proposals\n", len(q))
			return tw.Flush()
		}}
}

// targetList is a queue row's targets: two ids at most, then how many
// more, so that one wide merge does not pad every row ('show ID' lists
// them all).
func targetList(ids []string) string {
	if len(ids) <= 2 {
		return strings.Join(ids, ",")
	}
	return fmt.Sprintf("%s,%s +%d more", ids[0], ids[1], len(ids)-2)
}
