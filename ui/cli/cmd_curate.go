package cli

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/memreview/memreview/review/app"
)

func curateCommand() *command {
	var opt app.CuratorOptions
	var model string
	var allNew bool
	return &command{name: "curate", args: "[--probe] [--model M] [--dry-run] TRAJ_ID... | --all-new",
		summary: "Run the LLM curator over trajectories; its proposals join the review queue.",
		help:    "The model server is OPENAI_BASE_URL (any OpenAI-compatible API) with OPENAI_API_KEY, or memreview.toml's [curator].",
		json:    true,
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&opt.Probe, "probe", false, "let the curator run read-only probes first")
			fs.StringVar(&model, "model", "", "model name (default OPENAI_MODEL, else memreview.toml [curator] model)")
			fs.BoolVar(&opt.DryRun, "dry-run", false, "show the proposals without queueing them")
			fs.BoolVar(&opt.Redistill, "redistill", false, "distil again even when a trajectory has a packet")
			fs.BoolVar(&allNew, "all-new", false, "every trajectory that no proposal cites yet")
		},
		run: func(c *call, args []string) error {
			svc, err := c.service()
			if err != nil {
				return err
			}
			ids := args
			if allNew {
				if ids, err = svc.Uncurated(); err != nil {
					return err
				}
			}
			if len(ids) == 0 {
				return usagef("curate: name trajectories, or pass --all-new")
			}
			set, err := svc.CuratorSettings(model)
			if err != nil {
				return err
			}
			run, err := svc.Curate(c.ctx, set, ids, opt)
			if err != nil {
				return err
			}
			if c.json {
				return printJSON(c.stdout, run)
			}
			for _, p := range run.Proposals {
				lemma := ""
				if p.Record != nil {
					lemma = p.Record.Lemma
				}
				fmt.Fprintf(c.stdout, "%s  %-6s %s  %s\n", p.ID, p.Op, strings.Join(p.TargetIDs(), ","), oneLine(lemma+" — "+p.Rationale, 100))
			}
			fmt.Fprintf(c.stdout, "run %s: %d proposals, %d probes, %d steps, %d prompt + %d completion tokens, %s waiting for %s\n",
				run.ID, len(run.Proposals), len(run.ProbeRuns), run.Steps, run.PromptTokens, run.CompletionTokens, run.Latency.Round(time.Millisecond), run.Model)
			if opt.DryRun {
				fmt.Fprintln(c.stdout, "dry run: nothing was queued")
			}
			return nil
		}}
}
