package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/curator/eval"
	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/formats"
)

// Evaluation replays: memreview eval runs a task set with a task agent
// under conditions of memory (curator/eval does the work) and keeps every
// run beside the bank, in BANK/evals/RUN (for a team bank, beside the
// operator's memreview.toml): a plan written once and a results log
// appended and synced task run by task run, so that a run killed at any
// moment resumes with no task run twice and none lost. Runs are files, not
// tables of the bank: they are measurements of the bank rather than part
// of it, bulky (whole transcripts), written by one process at a time and
// never changed in the same transaction as a decision; deleting a run is
// deleting its folder. Attribution (evalattrib.go) reads them.

// The eval types front ends see.
type (
	// EvalPlan is a run's frozen plan.
	EvalPlan = eval.Plan
	// EvalTaskRun is one task run: task, condition, messages, tool
	// calls, tokens, grade.
	EvalTaskRun = eval.TaskRun
	// EvalProgress is how far a run has come.
	EvalProgress = eval.Progress
	// EvalCondStats is one condition of a report.
	EvalCondStats = eval.CondStats
	// EvalInterval is a mean with its 95% Student-t interval.
	EvalInterval = eval.Interval
	// EvalFaults are a model's faults in one task run.
	EvalFaults = eval.FaultCounts
)

// Eval defaults.
const (
	DefaultEvalBudget = eval.DefaultBudget
	DefaultEvalK      = eval.DefaultK
)

// EvalStatus values of EvalTaskRun.Status.
const (
	EvalPassed     = eval.Passed
	EvalFailed     = eval.Failed
	EvalUngradable = eval.Ungradable
	EvalError      = eval.Errored
)

// EvalDefaultConditions are the conditions of a run that names none.
var EvalDefaultConditions = eval.DefaultConditions

// EvalRequest starts a run.
type EvalRequest struct {
	// TasksFile names the task set; Tasks, when set, is read instead of
	// opening it (the name still names it in errors and the plan).
	TasksFile string
	Tasks     io.Reader
	// Conditions (nil: none, bank); Decisions adds bank@before:D and
	// bank@D for each decision D, so the run attributes it.
	Conditions []string
	Decisions  []string
	// Runs repeats the task set (0: 1); Budget bounds each task's tool
	// calls (0: 15); K is the records a bank condition gives (0: 5);
	// Seed seeds the pairs (0: 1).
	Runs, Budget, K int
	Seed            int64
	// Settings is the task agent's model server (EvalSettings).
	Settings CuratorSettings
	// RunID "" gets a fresh one.
	RunID string
	EvalRun
}

// EvalRun tunes running a plan, for Eval and ResumeEval alike.
type EvalRun struct {
	Jobs        int           // task runs at once (0: 1)
	TaskTimeout time.Duration // per task run (0: 5 minutes)
	OnProgress  func(EvalProgress)
	// Import imports the run's transcripts as trajectories when it ends.
	Import bool
}

// EvalSettings is the task agent's model server: configured as the
// curator's (OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL, memreview.toml
// [curator]), its model from model, else OPENAI_MODEL, else [eval] model,
// else [curator] model. With no endpoint named anywhere it refuses rather
// than call a hosted API nobody asked for.
func (s *Service) EvalSettings(model string) (CuratorSettings, error) {
	cfg, err := s.b.Config()
	if err != nil {
		return CuratorSettings{}, err
	}
	if strings.TrimSpace(os.Getenv("OPENAI_BASE_URL")) == "" && strings.TrimSpace(cfg.Curator.BaseURL) == "" {
		return CuratorSettings{}, errors.New("eval: no model server is configured: set OPENAI_BASE_URL (http://localhost:11434/v1 for ollama, http://localhost:8000/v1 for vLLM, http://localhost:8080/v1 for llama.cpp's server) or base_url in memreview.toml [curator]; a hosted API is used only when you name it (OPENAI_BASE_URL=https://api.openai.com/v1 with OPENAI_API_KEY)")
	}
	if model == "" && os.Getenv("OPENAI_MODEL") == "" {
		model = cfg.Eval.Model
	}
	set := curator.SettingsFromEnv(cfg.Curator, model)
	set.Operator = s.opt.Operator
	return set, nil
}

// evalRoot is the folder the bank's runs live in.
func (s *Service) evalRoot() (string, error) {
	if s.info.Dir == "" {
		return "", errors.New("eval: this bank has no folder to keep eval runs in")
	}
	return filepath.Join(s.info.Dir, "evals"), nil
}

// evalDir is run id's folder, refusing an id that is not one.
func (s *Service) evalDir(id string) (string, error) {
	root, err := s.evalRoot()
	if err != nil {
		return "", err
	}
	if err := review.CheckID(id); err != nil {
		return "", fmt.Errorf("eval: run %q: %w", id, err)
	}
	return filepath.Join(root, id), nil
}

// PlanEval reads the task set and freezes what each condition gives each
// task, checking everything a run needs before anything runs: a task set
// line that is wrong is an *InputError naming file, line and field; an
// unknown condition, decision or environment is an error.
func (s *Service) PlanEval(req EvalRequest) (*EvalPlan, error) {
	cfg, err := s.b.Config()
	if err != nil {
		return nil, err
	}
	in := req.Tasks
	if in == nil {
		b, err := os.ReadFile(req.TasksFile)
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		in = bytes.NewReader(b)
	}
	lines, err := formats.ReadTasks(in, req.TasksFile, func(e string) bool { _, ok := cfg.Env(e); return ok })
	if err != nil {
		return nil, err
	}
	names := req.Conditions
	if len(names) == 0 {
		names = eval.DefaultConditions
	}
	for _, d := range req.Decisions {
		names = append(names, "bank@before:"+d, "bank@"+d)
	}
	conds, err := eval.ParseConditions(strings.Join(names, ","))
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	set := req.Settings
	p := &eval.Plan{ID: req.RunID, TasksFile: req.TasksFile, Runs: max(req.Runs, 1), Budget: req.Budget, Seed: req.Seed,
		K: req.K, Model: set.Model, BaseURL: set.BaseURL, Operator: s.opt.Operator, Started: time.Now().UTC()}
	if p.ID == "" {
		p.ID = eval.NewRunID(p.Started)
	}
	if p.Budget <= 0 {
		p.Budget = eval.DefaultBudget
	}
	if p.K <= 0 {
		p.K = eval.DefaultK
	}
	if p.Seed == 0 {
		p.Seed = 1
	}
	if price, ok := cfg.Eval.PriceOf(set.Model); ok {
		p.Price = &price
	}
	for _, l := range lines {
		p.Tasks = append(p.Tasks, l.Task)
	}
	for _, c := range conds {
		p.Conditions = append(p.Conditions, c.Name)
		if err := s.planCondition(p, c); err != nil {
			return nil, fmt.Errorf("eval: condition %s: %w", c.Name, err)
		}
	}
	return p, nil
}

// taskScope is the retrieval scope of a task.
func taskScope(t *review.Task) review.Scope {
	return review.Scope{Env: t.Env, Tags: t.Tags, TaskFamily: t.TaskFamily}
}

// planCondition records what condition c gives each task of p.
func (s *Service) planCondition(p *eval.Plan, c eval.Condition) error {
	if c.Kind == eval.KindNone {
		for _, t := range p.Tasks {
			p.SetMemory(c.Name, t.ID, nil)
		}
		return nil
	}
	if c.Kind == eval.KindBank {
		for i := range p.Tasks {
			t := &p.Tasks[i]
			got, err := s.Retrieve(RetrieveRequest{Task: t.Text, Scope: taskScope(t), K: p.K, Preview: true, BM25Only: true})
			if err != nil {
				return err
			}
			recs := make([]review.Record, len(got))
			for j, g := range got {
				recs[j] = g.Record
			}
			p.SetMemory(c.Name, t.ID, recs)
		}
		return nil
	}
	var recs []review.Record
	var err error
	switch c.Kind {
	case eval.KindTime:
		recs, err = s.RecordsAsOf(c.At)
	case eval.KindAfter, eval.KindBefore:
		if recs, err = s.RecordsAtDecision(c.Ref, c.Kind == eval.KindAfter); err == nil {
			if p.Decisions == nil {
				p.Decisions = map[string][]string{}
			}
			p.Decisions[c.Ref], err = s.DecisionRecords(c.Ref)
		}
	case eval.KindPending:
		recs, err = s.RecordsWithPending()
	}
	if err != nil {
		return err
	}
	snap, err := index.NewSnapshot(recs)
	if err != nil {
		return err
	}
	defer snap.Close()
	byID := map[string]review.Record{}
	for _, r := range recs {
		byID[r.ID] = r
	}
	for i := range p.Tasks {
		t := &p.Tasks[i]
		hits, err := snap.Retrieve(t.Text, taskScope(t), p.K)
		if err != nil {
			return err
		}
		got := make([]review.Record, 0, len(hits))
		for _, h := range hits {
			got = append(got, byID[h.ID])
		}
		p.SetMemory(c.Name, t.ID, got)
	}
	return nil
}

// Eval plans a run, saves the plan and runs it to the end (or until ctx
// ends: what finished is kept, and ResumeEval finishes the rest). The
// report covers what ran.
func (s *Service) Eval(ctx context.Context, req EvalRequest) (*EvalReport, error) {
	p, err := s.PlanEval(req)
	if err != nil {
		return nil, err
	}
	dir, err := s.evalDir(p.ID)
	if err != nil {
		return nil, err
	}
	log, err := eval.Create(dir, p)
	if err != nil {
		return nil, err
	}
	return s.runEval(ctx, log, p, nil, req.Settings, req.EvalRun)
}

// ResumeEval finishes run id with set's model server: the task runs in
// its log stay, the rest run. It fails when another process runs it.
func (s *Service) ResumeEval(ctx context.Context, id string, set CuratorSettings, opt EvalRun) (*EvalReport, error) {
	dir, err := s.evalDir(id)
	if err != nil {
		return nil, err
	}
	log, p, done, err := eval.Resume(dir)
	if err != nil {
		return nil, err
	}
	set.Model = p.Model // the run's model, whatever the environment says now
	return s.runEval(ctx, log, p, done, set, opt)
}

func (s *Service) runEval(ctx context.Context, log *eval.Log, p *eval.Plan, done []eval.TaskRun, set CuratorSettings, opt EvalRun) (*EvalReport, error) {
	cfg, err := s.b.Config()
	if err != nil {
		log.Close()
		return nil, err
	}
	agent := eval.Agent{LLM: curator.NewLLM(set), Probe: s.evalProbe, Budget: p.Budget, Timeout: opt.TaskTimeout}
	runErr := eval.Run(ctx, agent, log, p, done, eval.Options{Jobs: opt.Jobs, OnProgress: opt.OnProgress,
		EnvKind: func(name string) (probe.Kind, error) {
			e, ok := cfg.Env(name)
			if !ok {
				return "", fmt.Errorf("environment %q is not declared in memreview.toml", name)
			}
			return e.Kind, nil
		}})
	if err := log.Close(); runErr == nil {
		runErr = err
	}
	rep, err := s.EvalReport(p.ID)
	if err != nil {
		return nil, err
	}
	if runErr == nil && opt.Import {
		if _, err := s.ImportEval(p.ID); err != nil {
			return rep, err
		}
	}
	if errors.Is(runErr, context.Canceled) || errors.Is(runErr, context.DeadlineExceeded) {
		runErr = fmt.Errorf("eval %s stopped with %d of %d task runs done (%v); memreview eval --resume %s finishes it", p.ID, rep.Done, rep.Total, runErr, p.ID)
	}
	return rep, runErr
}

// evalProbe is the task agent's and the grader's probe: the service's,
// read-only, with its caps and time limit.
func (s *Service) evalProbe(ctx context.Context, env, input string) probe.Result {
	return s.Probe(ctx, env, input, probe.Limits{})
}

// EvalRunInfo is one run as eval list shows it.
type EvalRunInfo struct {
	ID         string
	Started    time.Time
	Conditions []string
	Model      string
	Done       int
	Total      int
	Running    bool
	Left       time.Duration // a running run's time left, 0 while unknown
	Err        error         // the run could not be read
}

// EvalRuns lists the bank's runs, newest first.
func (s *Service) EvalRuns() ([]EvalRunInfo, error) {
	root, err := s.evalRoot()
	if err != nil {
		return nil, err
	}
	infos, err := eval.List(root)
	if err != nil {
		return nil, err
	}
	out := make([]EvalRunInfo, len(infos))
	for i, in := range infos {
		out[i] = EvalRunInfo{ID: in.Plan.ID, Started: in.Plan.Started, Conditions: in.Plan.Conditions, Model: in.Plan.Model,
			Done: in.Done, Total: in.Total, Running: in.Running, Err: in.Err}
		if in.Running {
			// Only a running run's task runs are decoded, for its pace.
			if _, runs, _, err := eval.Read(filepath.Join(root, in.Plan.ID)); err == nil {
				out[i].Left = eval.Left(runs, in.Done, in.Total)
			}
		}
	}
	return out, nil
}

// EvalReport is what a run found: per condition, per task index, every
// task run, and attribution.
type EvalReport struct {
	*eval.Report
	Running bool
	// Records is each record's effect (the run has none and bank);
	// Decisions each decision's (the run has bank@before:D and bank@D).
	Records   map[string]*eval.RecordEffect
	Decisions []eval.DecisionEffect
}

// EvalReport reads run id.
func (s *Service) EvalReport(id string) (*EvalReport, error) {
	dir, err := s.evalDir(id)
	if err != nil {
		return nil, err
	}
	p, runs, running, err := eval.Read(dir)
	if err != nil {
		return nil, err
	}
	return NewEvalReport(p, runs, running), nil
}

// ParseEvalConditions reads a comma-separated list of conditions.
func ParseEvalConditions(list string) ([]string, error) {
	cs, err := eval.ParseConditions(list)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out, nil
}

// Left is a running run's time left at the pace of its last task runs
// (up to 20); 0 while fewer than two have ended.
func (r *EvalReport) Left() time.Duration { return eval.Left(r.Runs, r.Done, r.Total) }

// NewEvalReport is the report of plan's task runs: what EvalReport gives
// for a run in the bank, for a plan and task runs in hand (tests, a
// preview).
func NewEvalReport(plan *EvalPlan, runs []EvalTaskRun, running bool) *EvalReport {
	return &EvalReport{Report: eval.NewReport(plan, runs), Running: running,
		Records: eval.RecordEffects(plan, runs), Decisions: eval.DecisionEffects(plan, runs)}
}
