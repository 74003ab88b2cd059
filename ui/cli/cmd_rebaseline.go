package cli

import (
	"flag"
	"strconv"
	"strings"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

func rebaselineCommand() *command {
	var check, note string
	var version int
	return &command{name: "rebaseline", args: "RECORD_ID",
		summary: "Take the last verify output of a suspect record's failing checks as their expected results, in a new version written as your edit.",
		help:    "Look at the record first ('memreview show ID'); --version says which version you looked at.",
		json:    true,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&check, "check", "", "only these checks, 1-based and comma-separated (default: every check that failed)")
			fs.IntVar(&version, "version", 0, "the version you looked at (a record changed since is a conflict)")
			fs.StringVar(&note, "note", "", "why (kept in the history)")
		},
		run: func(c *call, args []string) error {
			if err := needArgs("rebaseline", args, 1, "RECORD_ID"); err != nil {
				return err
			}
			var checks []int
			if check != "" {
				for _, f := range strings.Split(check, ",") {
					n, err := strconv.Atoi(strings.TrimSpace(f))
					if err != nil || n < 1 {
						return usagef("rebaseline: --check %q: want check numbers from 1, comma-separated", check)
					}
					checks = append(checks, n)
				}
			}
			return c.decide(func(s *app.Service) (*review.Decision, error) {
				return s.Rebaseline(c.ctx, args[0], version, checks, c.operator, note)
			})
		}}
}
