package cli

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

// tokenCommand manages agents' credentials for 'serve --http'.
func tokenCommand() *command {
	return &command{name: "token", args: "add|list|revoke",
		summary: "Manage agents' credentials for 'serve --http': one token per agent, with scopes, environments, tags and a rate limit.",
		subs:    []*command{tokenAddCommand(), tokenListCommand(), tokenRevokeCommand()}}
}

func tokenAddCommand() *command {
	var scopes, tags, rate string
	var envs listFlag
	return &command{name: "add", args: "NAME",
		summary: "Make an agent's token and print it once, alone on the last line; the bank keeps only its hash.",
		help: "The token's NAME is the source of the agent's proposals (mcp:NAME) and its name in the audit.\n" +
			"--env limits what it sees and proposes to those environments (records with none are seen by all);\n" +
			"--rate caps its proposals and submitted runs, e.g. 10/min.",
		json:         true,
		interspersed: true,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&scopes, "scopes", "read,propose", "what it may do: read (search, read, status) and propose (propose, submit runs)")
			fs.Var(&envs, "env", "an environment it is limited to (repeat, or comma-separated)")
			fs.StringVar(&tags, "tags", "", "tags it is limited to, comma-separated")
			fs.StringVar(&rate, "rate", "", "at most N proposals and submitted runs a minute: N/min")
		},
		run: func(c *call, args []string) error {
			if len(args) != 1 {
				return usagef("token add: give the agent's NAME")
			}
			n, err := parseRate(rate)
			if err != nil {
				return usageError{err.Error()}
			}
			svc, err := c.service()
			if err != nil {
				return err
			}
			token, tok, err := svc.AddToken(app.TokenRequest{Name: args[0], Scopes: splitList(scopes), Envs: envs, Tags: splitList(tags), RatePerMin: n})
			if err != nil {
				return err
			}
			if c.json {
				return printJSON(c.stdout, map[string]any{"token": token, "credential": tok})
			}
			fmt.Fprintf(c.stdout, "token %s: %s\n", tok.Name, describeToken(tok))
			fmt.Fprintln(c.stdout, "Store it now: it is shown once, and the bank keeps only its hash.")
			fmt.Fprintln(c.stdout, token)
			return nil
		}}
}

// parseRate reads --rate N/min (or a bare N); "" is no cap.
func parseRate(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	num := strings.TrimSuffix(strings.TrimSuffix(s, "/min"), "/m")
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("token add: --rate %q: want N/min with N > 0", s)
	}
	return n, nil
}

func describeToken(t *review.AgentToken) string {
	parts := []string{"scopes " + strings.Join(t.Scopes, ",")}
	if len(t.Envs) > 0 {
		parts = append(parts, "envs "+strings.Join(t.Envs, ","))
	}
	if len(t.Tags) > 0 {
		parts = append(parts, "tags "+strings.Join(t.Tags, ","))
	}
	if t.RatePerMin > 0 {
		parts = append(parts, fmt.Sprintf("rate %d/min", t.RatePerMin))
	}
	return strings.Join(parts, "; ")
}

func tokenListCommand() *command {
	return &command{name: "list", args: "",
		summary: "List the agents' credentials (never the tokens).",
		json:    true,
		run: func(c *call, args []string) error {
			if err := noArgs("token list", args); err != nil {
				return err
			}
			svc, err := c.service()
			if err != nil {
				return err
			}
			ts, err := svc.Tokens()
			if err != nil {
				return err
			}
			if c.json {
				return printJSON(c.stdout, nonNil(ts))
			}
			tw := tabwriter.NewWriter(c.stdout, 2, 4, 2, ' ', 0)
			for _, t := range ts {
				state := "active since " + t.Created.Format(time.RFC3339)
				if !t.Active() {
					state = "revoked " + t.Revoked.Format(time.RFC3339)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, describeToken(&t), state)
			}
			fmt.Fprintf(tw, "%d credentials\n", len(ts))
			return tw.Flush()
		}}
}

func tokenRevokeCommand() *command {
	return &command{name: "revoke", args: "NAME",
		summary: "Revoke an agent's token: a running server refuses its next request.",
		run: func(c *call, args []string) error {
			if len(args) != 1 {
				return usagef("token revoke: give the agent's NAME")
			}
			svc, err := c.service()
			if err != nil {
				return err
			}
			t, err := svc.RevokeToken(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "revoked %s at %s\n", t.Name, t.Revoked.Format(time.RFC3339))
			return nil
		}}
}
