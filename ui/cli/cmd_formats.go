package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/memreview/memreview/review/app"
)

func formatsCommand() *command {
	return &command{name: "formats", args: "",
		summary: "List the trajectory and memory-bank formats import reads, with what each reads.",
		run: func(c *call, args []string) error {
			if err := noArgs("formats", args); err != nil {
				return err
			}
			tw := tabwriter.NewWriter(c.stdout, 2, 4, 2, ' ', 0)
			for _, k := range []string{app.KindTrajectories, app.KindMemories} {
				fmt.Fprintf(tw, "%s (import %s):\n", k, k)
				for _, f := range app.Formats(k) {
					fmt.Fprintf(tw, "  %s\t%s\n", f.Name, f.About)
				}
			}
			tw.Flush()
			fmt.Fprintln(c.stdout, "\nFormats are detected from each file's shape; --format NAME forces one. See docs/FORMATS.md.")
			return nil
		}}
}
