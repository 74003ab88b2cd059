package cli

import (
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
)

func queueCommand() *command {
	var flagged bool
	return &command{name: "queue", args: "",
		summary: "List the open proposals, with who is reviewing each.",
		help:    "A proposal the poisoning screen flagged is marked with its first finding; --flagged lists only those.",
		json:    true,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&flagged, "flagged", false, "only the proposals the poisoning screen flagged, with their findings")
		},
		run: func(c *call, args []string) error {
			if err := noArgs("queue", args); err != nil {
				return err
			}
			svc, err := c.service()
			if err != nil {
				return err
			}
			q, err := svc.Queue()
			if flagged {
				q, err = svc.FlaggedQueue()
			}
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
				mark := ""
				if p.Flagged() {
					mark = fmt.Sprintf("  [flagged: %s]", p.Screen.Findings[0].Kind)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s%s%s\n", p.ID, p.Status, p.Op, targetList(p.TargetIDs()), oneLine(lemma, 80), reviewers[p.ID], mark)
				if flagged {
					for _, f := range p.Screen.Findings {
						fmt.Fprintf(tw, "  %s\n", f)
					}
				}
			}
			what := "open proposals"
			if flagged {
				what = "flagged open proposals"
			}
			fmt.Fprintf(tw, "%d %s\n", len(q), what)
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
