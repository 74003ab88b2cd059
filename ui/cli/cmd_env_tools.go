package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/memreview/memreview/review/printable"
)

func envToolsCommand() *command {
	return &command{name: "tools", args: "NAME",
		summary: "List an MCP environment's tools: their annotations, and whether a probe may call each, and why.",
		help: "A tool is callable when its server annotates it readOnlyHint and not destructiveHint, or when the environment's allow-list names it\n" +
			"(then each result says \"read-only by your allow-list, not by the server\"). --json adds each tool's input schema.",
		json: true,
		run: func(c *call, args []string) error {
			if len(args) != 1 {
				return usagef("env tools: give the NAME of an mcp environment")
			}
			s, err := c.service()
			if err != nil {
				return err
			}
			tools, err := s.EnvTools(c.ctx, args[0])
			if err != nil {
				return err
			}
			if c.json {
				return printJSON(c.stdout, nonNil(tools))
			}
			tw := tabwriter.NewWriter(c.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "TOOL\tREAD-ONLY\tDESTRUCTIVE\tCALLABLE\tWHY")
			for _, t := range tools {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", printable.Line(t.Name), yesNo(t.ReadOnly, t.Annotated), yesNo(t.Destructive, t.Annotated),
					yesNo(t.Callable, true), printable.Line(t.Why))
			}
			return tw.Flush()
		}}
}

// yesNo says yes or no, or "-" for an annotation the server did not send.
func yesNo(v, known bool) string {
	switch {
	case !known:
		return "-"
	case v:
		return "yes"
	}
	return "no"
}
