package cli

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/memreview/memreview/review/app"
)

func embeddingsCommand() *command {
	return &command{name: "embeddings", args: "status|wait",
		summary: "Show how far the bank's records are embedded, or wait until every active record has a vector.",
		subs:    []*command{embeddingsStatusCommand(), embeddingsWaitCommand()}}
}

func embeddingsStatusCommand() *command {
	return &command{name: "status",
		summary: "Print where embedding stands: the model (or the offline fallback), how many active records have a vector, and why embedding fails when it does.",
		json:    true,
		run: func(c *call, args []string) error {
			if err := noArgs("embeddings status", args); err != nil {
				return err
			}
			svc, err := c.service()
			if err != nil {
				return err
			}
			st, err := svc.EmbeddingsStatus()
			if err != nil {
				return err
			}
			return printEmbeddingStatus(c, st)
		}}
}

func embeddingsWaitCommand() *command {
	var timeout time.Duration
	return &command{name: "wait",
		summary: "Return once every active record has a vector of the configured model (or the offline fallback), embedding them here when no other process does.",
		help:    "It prints the status as it changes on stderr and the final status on stdout; with --timeout it fails (exit 1) when the time runs out first.",
		json:    true,
		flags: func(fs *flag.FlagSet) {
			fs.DurationVar(&timeout, "timeout", 0, "give up after this long (0: wait as long as it takes)")
		},
		run: func(c *call, args []string) error {
			if err := noArgs("embeddings wait", args); err != nil {
				return err
			}
			svc, err := c.service()
			if err != nil {
				return err
			}
			ctx := c.ctx
			if timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			st, err := svc.WaitEmbeddings(ctx, func(st app.EmbeddingStatus) {
				if !c.json {
					fmt.Fprintln(c.stderr, st.String())
				}
			})
			if err != nil {
				return err
			}
			return printEmbeddingStatus(c, st)
		}}
}

// printEmbeddingStatus prints the status as JSON with --json, else its
// line and, under it, the model and where its vectors come from.
func printEmbeddingStatus(c *call, st app.EmbeddingStatus) error {
	if c.json {
		return printJSON(c.stdout, st)
	}
	fmt.Fprintln(c.stdout, st.String())
	switch {
	case st.Model == "":
	case st.Fallback:
		fmt.Fprintf(c.stdout, "model: %s (offline fallback; [embeddings] base_url and model, or MEMREVIEW_EMBEDDINGS_URL and MEMREVIEW_EMBEDDINGS_MODEL, name an endpoint)\n", st.Model)
	default:
		fmt.Fprintf(c.stdout, "model: %s at %s\n", st.Model, st.Endpoint)
	}
	if st.Serving != "" && st.Serving != st.Model {
		fmt.Fprintf(c.stdout, "serving: %s (%d vectors) until %s is complete\n", st.Serving, st.ServingVectors, st.Model)
	}
	return nil
}
