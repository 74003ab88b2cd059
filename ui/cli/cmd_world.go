// The world commands: sample, demo, curate.

package cli

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample"
)

func worldCommands(jsonOut *bool) []*command {
	return []*command{
		{name: "sample", args: "DIR  |  gen [--records N] [--trajectories M] [--seed S] DIR",
			help:  "Write the sample world (a bank with its environments) to DIR,\nor, with gen, a synthetic bank of N records for trying memreview at scale.",
			flags: func(fs *flag.FlagSet) { fs.Int64("seed", sample.Seed, "generation seed") },
			run: func(a *cmdline, fs *flag.FlagSet) error {
				if err := needArgs(fs, 1, "DIR"); err != nil {
					return err
				}
				if fs.Arg(0) == "gen" {
					return cmdSampleGen(a, fs.Args()[1:])
				}
				seed := fs.Lookup("seed").Value.(flag.Getter).Get().(int64)
				if err := sample.Generate(fs.Arg(0), seed); err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "wrote the sample world to %s (open it with: memreview --bank %s)\n", fs.Arg(0), fs.Arg(0))
				return nil
			}},
		{name: "demo", args: "", help: "Open the TUI on the sample world in your data directory.",
			flags: func(fs *flag.FlagSet) { fs.Bool("reset", false, "recreate the sample world first") },
			run: func(a *cmdline, fs *flag.FlagSet) error {
				reset := fs.Lookup("reset").Value.String() == "true"
				dir, err := sample.MaterialiseDefault(reset)
				if err != nil {
					return err
				}
				a.bank = dir
				return runTUI(a, true)
			}},
		curateCommand(jsonOut),
	}
}

func cmdSampleGen(a *cmdline, args []string) error {
	fs := flag.NewFlagSet("memreview sample gen", flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	opt := sample.SynthOptions{}
	fs.IntVar(&opt.Records, "records", 10000, "records to generate")
	fs.IntVar(&opt.Trajectories, "trajectories", 200, "trajectories to generate")
	fs.Int64Var(&opt.Seed, "seed", sample.Seed, "generation seed")
	if err := fs.Parse(args); err != nil {
		return usagef("sample gen: %v", err)
	}
	if fs.NArg() != 1 {
		return usagef("sample gen: give one DIR")
	}
	start := time.Now()
	stored, err := synthIndexed(fs.Arg(0), opt)
	if err != nil {
		return err
	}
	// The build stored the sequence of the last insert: opening the bank
	// catches the index up with Synth's edits after it.
	svc, err := app.Open(fs.Arg(0), app.Options{Operator: a.operator})
	if err != nil {
		return err
	}
	defer svc.Close()
	if _, err := svc.IndexDocs(); err != nil {
		return err
	}
	total := time.Since(start)
	fmt.Fprintf(a.stdout, "wrote %d records and %d trajectories to %s in %s, indexed alongside: searchable after %s (%s after the writing)\n",
		opt.Records, opt.Trajectories, fs.Arg(0), stored.Round(time.Millisecond), total.Round(time.Millisecond), (total - stored).Round(time.Millisecond))
	return nil
}

// synthIndexed writes the synthetic bank into dir and builds its index at
// the same time (index.BuildFilling reads each transaction of records as
// it commits), returning how long the writing took. On an error from
// either side the other stops too, and no index is left that an open
// trusts.
func synthIndexed(dir string, opt sample.SynthOptions) (time.Duration, error) {
	start := time.Now()
	st, err := sample.NewSynthStore(dir, opt)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	filling := index.NewFilling(opt.Records)
	opt.Committed, opt.Inserted = filling.Committed, filling.Inserted
	built := make(chan error, 1)
	go func() { built <- index.BuildFilling(filepath.Join(dir, store.IndexDir), st, filling) }()
	err = sample.SynthInto(st, opt)
	if err != nil {
		filling.Fail(err)
	}
	stored := time.Since(start)
	if berr := <-built; err == nil {
		err = berr
	}
	if err == nil {
		err = st.Close()
	}
	return stored, err
}

func curateCommand(jsonOut *bool) *command {
	return &command{name: "curate", args: "[--probe] [--model M] [--dry-run] TRAJ_ID... | --all-new",
		help: "Run the LLM curator over trajectories; its proposals join the review queue.\nThe model server is OPENAI_BASE_URL (any OpenAI-compatible API) with OPENAI_API_KEY.",
		flags: func(fs *flag.FlagSet) {
			fs.BoolVar(jsonOut, "json", false, "print the run as JSON")
			fs.Bool("probe", false, "let the curator run read-only probes first")
			fs.String("model", "", "model name (default OPENAI_MODEL, else memreview.toml [curator] model)")
			fs.Bool("dry-run", false, "show the proposals without queueing them")
			fs.Bool("redistill", false, "distil again even when a trajectory has a packet")
			fs.Bool("all-new", false, "every trajectory that no proposal cites yet")
		},
		run: func(a *cmdline, fs *flag.FlagSet) error {
			svc, err := a.open()
			if err != nil {
				return err
			}
			defer svc.Close()
			ids := fs.Args()
			if fs.Lookup("all-new").Value.String() == "true" {
				if ids, err = svc.Uncurated(); err != nil {
					return err
				}
			}
			if len(ids) == 0 {
				return usagef("curate: name trajectories, or pass --all-new")
			}
			set, err := svc.CuratorSettings(flagString(fs, "model"))
			if err != nil {
				return err
			}
			opt := curator.Options{
				Probe:     fs.Lookup("probe").Value.String() == "true",
				DryRun:    fs.Lookup("dry-run").Value.String() == "true",
				Redistill: fs.Lookup("redistill").Value.String() == "true",
			}
			run, err := svc.Curate(a.ctx, set, ids, opt)
			if err != nil {
				return err
			}
			if *jsonOut {
				return printJSON(a.stdout, run)
			}
			for _, p := range run.Proposals {
				lemma := ""
				if p.Record != nil {
					lemma = p.Record.Lemma
				}
				fmt.Fprintf(a.stdout, "%s  %-6s %s  %s\n", p.ID, p.Op, strings.Join(p.TargetIDs(), ","), oneLine(lemma+" — "+p.Rationale, 100))
			}
			fmt.Fprintf(a.stdout, "run %s: %d proposals, %d probes, %d steps, %d prompt + %d completion tokens, %s waiting for %s\n",
				run.ID, len(run.Proposals), len(run.ProbeRuns), run.Steps, run.PromptTokens, run.CompletionTokens, run.Latency.Round(time.Millisecond), run.Model)
			if opt.DryRun {
				fmt.Fprintln(a.stdout, "dry run: nothing was queued")
			}
			return nil
		}}
}
