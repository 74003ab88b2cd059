package cli

import (
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/memreview/memreview/review"
)

// auditCommand lists agents' MCP tool calls.
func auditCommand() *command {
	var agent, since string
	var limit int
	return &command{name: "audit", args: "",
		summary: "List agents' MCP tool calls: who, which tool, the size of its arguments, how it ended and when.",
		help:    fmt.Sprintf("The bank keeps the newest %d calls. No argument or result text is kept.", review.DefaultAuditCap),
		json:    true,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&agent, "agent", "", "only this agent's calls (a token's name)")
			fs.StringVar(&since, "since", "", "only calls since T: a time (2026-03-01, RFC 3339) or a duration ago (90m, 24h)")
			fs.IntVar(&limit, "limit", 0, "only the newest N calls")
		},
		run: func(c *call, args []string) error {
			if err := noArgs("audit", args); err != nil {
				return err
			}
			t, err := parseSince(since, time.Now())
			if err != nil {
				return usageError{err.Error()}
			}
			svc, err := c.service()
			if err != nil {
				return err
			}
			es, err := svc.Audit(review.AuditFilter{Agent: agent, Since: t, Limit: limit})
			if err != nil {
				return err
			}
			if c.json {
				return printJSON(c.stdout, nonNil(es))
			}
			tw := tabwriter.NewWriter(c.stdout, 2, 4, 2, ' ', 0)
			for _, e := range es {
				who := e.Agent
				if who == "" {
					who = "(" + e.Client + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d B\t%s\t%d ms\n", e.At.Local().Format(time.RFC3339), who, e.Tool, e.ArgBytes, e.Status, e.Millis)
			}
			fmt.Fprintf(tw, "%d calls\n", len(es))
			return tw.Flush()
		}}
}

// parseSince reads --since: "" (all), a date, an RFC 3339 time or a
// duration before now.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("audit: --since %q: want a time (2026-03-01, 2026-03-01T12:00:00Z) or a duration (24h)", s)
}
