package cli

import (
	"flag"
	"fmt"
	"time"

	"github.com/memreview/memreview/review/app"
)

func sampleCommand() *command {
	var seed int64
	return &command{name: "sample", args: "DIR  |  gen [--records N] [--trajectories M] [--seed S] DIR",
		summary: "Write the sample world (a bank with its environments) to DIR, or with gen a synthetic bank for trying memreview at scale.",
		// gen takes its own flags after it: the rest is its to parse.
		text:  true,
		flags: func(fs *flag.FlagSet) { fs.Int64Var(&seed, "seed", app.SampleSeed, "generation seed") },
		run: func(c *call, args []string) error {
			if err := needArgs("sample", args, 1, "DIR"); err != nil {
				return err
			}
			if args[0] == "gen" {
				return sampleGen(c, args[1:])
			}
			if len(args) != 1 {
				return usagef("sample: give one DIR")
			}
			if err := app.WriteSample(args[0], seed); err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "wrote the sample world to %s (open it with: memreview --bank %s)\n", args[0], args[0])
			return nil
		}}
}

// sampleGen is 'sample gen': its own flags follow "gen".
func sampleGen(c *call, args []string) error {
	opt := app.SynthOptions{}
	gen := &command{name: "gen", args: "[--records N] [--trajectories M] [--seed S] DIR",
		flags: func(fs *flag.FlagSet) {
			fs.IntVar(&opt.Records, "records", 10000, "records to generate")
			fs.IntVar(&opt.Trajectories, "trajectories", 200, "trajectories to generate")
			fs.Int64Var(&opt.Seed, "seed", app.SampleSeed, "generation seed")
		}}
	rest, err := gen.parse(c, "sample gen", args)
	if err != nil {
		return usagef("sample gen: %v", err)
	}
	if len(rest) != 1 {
		return usagef("sample gen: give one DIR")
	}
	dir := rest[0]
	start := time.Now()
	stored, err := app.GenerateBank(dir, opt)
	if err != nil {
		return err
	}
	// The build stored the sequence of the last insert: opening the bank
	// catches the index up with the generator's edits after it.
	svc, err := app.Open(c.ctx, dir, app.Options{Operator: c.operator})
	if err != nil {
		return err
	}
	defer svc.Close()
	if _, err := svc.IndexDocs(); err != nil {
		return err
	}
	total := time.Since(start)
	fmt.Fprintf(c.stdout, "wrote %d records and %d trajectories to %s in %s, indexed alongside: searchable after %s (%s after the writing)\n",
		opt.Records, opt.Trajectories, dir, stored.Round(time.Millisecond), total.Round(time.Millisecond), (total - stored).Round(time.Millisecond))
	return nil
}

func demoCommand() *command {
	var reset bool
	return &command{name: "demo", args: "",
		summary: "Open the TUI on the sample world kept in your data folder.",
		flags:   func(fs *flag.FlagSet) { fs.BoolVar(&reset, "reset", false, "recreate the sample world first") },
		run: func(c *call, args []string) error {
			if err := noArgs("demo", args); err != nil {
				return err
			}
			dir, err := app.DefaultSample(reset)
			if err != nil {
				return err
			}
			c.bank = dir
			return runTUI(c, true)
		}}
}
