package cli

import (
	"fmt"
	"strings"
)

func historyCommand() *command {
	return &command{name: "history", args: "RECORD_ID",
		summary: "Show every version of a record with who wrote it, why, and in which decision, and what eval runs say it did.",
		json:    true,
		run: func(c *call, args []string) error {
			if err := needArgs("history", args, 1, "RECORD_ID"); err != nil {
				return err
			}
			svc, err := c.service()
			if err != nil {
				return err
			}
			h, err := svc.History(args[0])
			if err != nil {
				return err
			}
			if c.json {
				return printJSON(c.stdout, h)
			}
			for _, v := range h {
				fmt.Fprintf(c.stdout, "v%d  %s  %-7s by %s  %s  %s\n   %s  %s\n", v.Record.Version, v.At.Format("2006-01-02 15:04:05"),
					v.Op, v.Actor, v.Decision, v.Reason, v.Record.Status, v.Record.Lemma)
			}
			// A merged record's history ends where its content went, and
			// where that went on each later merge.
			chain, err := svc.MergeChain(args[0])
			if err != nil {
				return err
			}
			if len(chain) > 0 {
				fmt.Fprintf(c.stdout, "merged into %s (%s holds its content now; memreview history %s)\n",
					strings.Join(chain, ", then into "), chain[len(chain)-1], chain[len(chain)-1])
			}
			return printRecordEval(c, svc, args[0])
		}}
}
