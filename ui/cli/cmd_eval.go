package cli

import (
	"flag"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/memreview/memreview/review/app"
	evalui "github.com/memreview/memreview/ui/eval"
)

// evalWidth is the width the eval command lays its table and chart out
// in.
const evalWidth = 100

func evalCommand() *command {
	var (
		req                  app.EvalRequest
		conditions, decision string
		model, resume        string
	)
	return &command{name: "eval", args: "[FLAGS] TASKS  |  --resume RUN  |  show RUN  |  list  |  import RUN",
		summary: "Replay a task set with a task agent under conditions of memory (none, the bank, the bank as of a decision) and report what the memory did.",
		help: `The task agent is any OpenAI-compatible chat model with tool calls, configured as the curator is:
OPENAI_BASE_URL (required: memreview calls no hosted API unless you name it), OPENAI_API_KEY, --model
(else OPENAI_MODEL, else memreview.toml [eval] model, else [curator] model). Conditions: none, bank,
bank+pending, bank@DECISION, bank@before:DECISION, bank@TIME (RFC 3339 or a date). Runs live in
BANK/evals/RUN; a run stopped or killed resumes with --resume. 'eval show RUN' prints a run, 'eval list'
lists them, 'eval import RUN' imports its transcripts as trajectories (the grade is the outcome).`,
		json: true,
		text: true, // show, list and import take their own flags
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&conditions, "conditions", strings.Join(app.EvalDefaultConditions, ","), "conditions, comma-separated")
			fs.StringVar(&decision, "decisions", "", "decisions to attribute, comma-separated: adds bank@before:D and bank@D for each")
			fs.IntVar(&req.Runs, "runs", 1, "repetitions of the task set")
			fs.IntVar(&req.Jobs, "jobs", 2, "task runs at once")
			fs.IntVar(&req.Budget, "budget", app.DefaultEvalBudget, "tool calls a task may make")
			fs.IntVar(&req.K, "k", app.DefaultEvalK, "records a bank condition gives each task")
			fs.Int64Var(&req.Seed, "seed", 1, "seed of the paired runs")
			fs.StringVar(&model, "model", "", "the task agent's model")
			fs.DurationVar(&req.TaskTimeout, "timeout", 5*time.Minute, "time limit of one task run")
			fs.BoolVar(&req.Import, "import", false, "import the transcripts as trajectories when the run ends")
			fs.StringVar(&resume, "resume", "", "finish run RUN")
		},
		run: func(c *call, args []string) error {
			if len(args) > 0 {
				switch args[0] {
				case "show":
					return evalShow(c, args[1:])
				case "list":
					return evalList(c, args[1:])
				case "import":
					return evalImport(c, args[1:])
				}
			}
			if resume != "" && len(args) > 0 {
				return usagef("eval: --resume takes no TASKS (the run's plan has them)")
			}
			if resume == "" && len(args) != 1 {
				return usagef("eval: give one TASKS file (or --resume RUN, show RUN, list, import RUN)")
			}
			svc, err := c.service()
			if err != nil {
				return err
			}
			opt := req.EvalRun
			opt.OnProgress = evalProgress(c)
			var rep *app.EvalReport
			if resume != "" {
				set, err := svc.EvalSettings(model)
				if err != nil {
					return err
				}
				rep, err = svc.ResumeEval(c.ctx, resume, set, opt)
				if err != nil {
					return evalStopped(c, rep, err)
				}
			} else {
				if req.Conditions, err = app.ParseEvalConditions(conditions); err != nil {
					return usagef("eval: %v", err)
				}
				for _, d := range strings.Split(decision, ",") {
					if d = strings.TrimSpace(d); d != "" {
						req.Decisions = append(req.Decisions, d)
					}
				}
				if req.Settings, err = svc.EvalSettings(model); err != nil {
					return err
				}
				req.TasksFile, req.EvalRun = args[0], opt
				rep, err = svc.Eval(c.ctx, req)
				if err != nil {
					return evalStopped(c, rep, err)
				}
			}
			return printEval(c, rep)
		}}
}

// evalStopped prints what a stopped run did, then its error.
func evalStopped(c *call, rep *app.EvalReport, err error) error {
	if rep != nil && !c.json {
		printEval(c, rep)
	}
	return err
}

// evalProgress prints a progress line on stderr at most once a second
// (and the last one), unless --json keeps stderr quiet.
func evalProgress(c *call) func(app.EvalProgress) {
	var mu sync.Mutex
	var last time.Time
	return func(p app.EvalProgress) {
		mu.Lock()
		defer mu.Unlock()
		if c.json || (time.Since(last) < time.Second && p.Done < p.Total) {
			return
		}
		last = time.Now()
		fmt.Fprintf(c.stderr, "eval %s: %s\n", p.Run, evalui.ProgressLine(p.Done, p.Total, p.ETA(time.Now()), 60))
	}
}

// printEval prints a report: the table, the chart, the faults and the
// decisions it attributes; --json prints its JSON.
func printEval(c *call, rep *app.EvalReport) error {
	if c.json {
		return printJSON(c.stdout, rep.JSON())
	}
	w := c.stdout
	fmt.Fprintln(w, evalui.Header(rep))
	fmt.Fprintln(w)
	for _, l := range evalui.TableLines(rep, evalWidth, true) {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w, "\npass rate over the task sequence (█ all passed, ▁ none, blank: not run yet):")
	for _, l := range evalui.ChartLines(rep, evalWidth) {
		fmt.Fprintln(w, l)
	}
	if faults := evalui.FaultLines(rep, evalWidth); len(faults) > 0 {
		fmt.Fprintln(w, "\nfaults:")
		for _, l := range faults {
			fmt.Fprintln(w, "  "+l)
		}
	}
	if l := evalui.RecordsLine(rep, 1<<20); l != "" {
		fmt.Fprintln(w, "\n"+l)
	}
	for i, d := range rep.Decisions {
		if i == 0 {
			fmt.Fprintln(w, "\ndecisions:")
		}
		fmt.Fprintf(w, "  %s: %s\n", d.Decision, d.String())
	}
	return nil
}

func evalShow(c *call, args []string) error {
	sub := &command{name: "show", args: "RUN", json: true}
	rest, err := sub.parse(c, "eval show", args)
	if err != nil {
		return usageError{err.Error()}
	}
	if len(rest) != 1 {
		return usagef("eval show: give one RUN (see 'memreview eval list')")
	}
	if c.json {
		c.stdout = c.rawOut
	}
	svc, err := c.service()
	if err != nil {
		return err
	}
	rep, err := svc.EvalReport(rest[0])
	if err != nil {
		return err
	}
	return printEval(c, rep)
}

func evalList(c *call, args []string) error {
	sub := &command{name: "list", json: true}
	rest, err := sub.parse(c, "eval list", args)
	if err != nil {
		return usageError{err.Error()}
	}
	if err := noArgs("eval list", rest); err != nil {
		return err
	}
	if c.json {
		c.stdout = c.rawOut
	}
	svc, err := c.service()
	if err != nil {
		return err
	}
	runs, err := svc.EvalRuns()
	if err != nil {
		return err
	}
	if c.json {
		return printJSON(c.stdout, app.ListJSON(runs))
	}
	if len(runs) == 0 {
		fmt.Fprintln(c.stdout, "no eval runs yet (memreview eval TASKS starts one)")
	}
	for _, r := range runs {
		if r.Err != nil {
			fmt.Fprintf(c.stdout, "%s  unreadable: %v\n", r.ID, r.Err)
			continue
		}
		state := ""
		if r.Running {
			state = "  running"
		}
		fmt.Fprintf(c.stdout, "%s  %s  %-14s %d/%d  %s%s\n", r.ID, r.Started.UTC().Format("2006-01-02 15:04"), r.Model, r.Done, r.Total,
			strings.Join(r.Conditions, ","), state)
	}
	return nil
}

func evalImport(c *call, args []string) error {
	sub := &command{name: "import", args: "RUN"}
	rest, err := sub.parse(c, "eval import", args)
	if err != nil {
		return usageError{err.Error()}
	}
	if len(rest) != 1 {
		return usagef("eval import: give one RUN")
	}
	svc, err := c.service()
	if err != nil {
		return err
	}
	n, err := svc.ImportEval(rest[0])
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "imported %d transcripts of %s as trajectories (memreview curate --all-new distils them)\n", n, rest[0])
	return nil
}
