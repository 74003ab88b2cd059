package eval

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

// Progress is how far a run has come, told after each task run.
type Progress struct {
	Run         string
	Done, Total int       // task runs in the log, and in the plan
	Session     int       // task runs this process finished
	Since       time.Time // when this process started on the run
	Last        *TaskRun  // the task run just logged
}

// ETA is the time left at this process's pace; 0 while unknown.
func (p Progress) ETA(now time.Time) time.Duration {
	if p.Session == 0 || p.Done >= p.Total {
		return 0
	}
	per := now.Sub(p.Since) / time.Duration(p.Session)
	return per * time.Duration(p.Total-p.Done)
}

// Left is a run's time left at the pace of its last task runs (up to
// 20): the spacing of their ends, times the total-done task runs left; 0
// while fewer than two have ended.
func Left(runs []TaskRun, done, total int) time.Duration {
	left := total - done
	if left <= 0 || len(runs) < 2 {
		return 0
	}
	ends := make([]time.Time, 0, len(runs))
	for i := range runs {
		ends = append(ends, runs[i].Ended)
	}
	sort.Slice(ends, func(i, j int) bool { return ends[i].Before(ends[j]) })
	recent := ends[max(len(ends)-20, 0):]
	span := recent[len(recent)-1].Sub(recent[0])
	if span <= 0 {
		return 0
	}
	return span / time.Duration(len(recent)-1) * time.Duration(left)
}

// Options tune one Run.
type Options struct {
	Jobs       int            // task runs at once; 0: 1
	OnProgress func(Progress) // called after each task run is logged, from one goroutine at a time
	// EnvKind gives an environment's kind, for the tools the task agent
	// gets.
	EnvKind func(env string) (probe.Kind, error)
}

// Run works every unit of plan not in done, up to opt.Jobs at a time,
// grading each answer and appending each task run to log the moment it
// ends. It stops at the first failure to write the log or when ctx ends
// (the units in flight are not logged and run again on resume); faults of
// the model never stop it.
func Run(ctx context.Context, agent Agent, log *Log, plan *Plan, done []TaskRun, opt Options) error {
	jobs := max(opt.Jobs, 1)
	have := map[UnitKey]bool{}
	for i := range done {
		have[done[i].Key()] = true
	}
	var todo []UnitKey
	for _, u := range plan.Units() {
		if !have[u] {
			todo = append(todo, u)
		}
	}
	kinds := map[string]probe.Kind{}
	for _, t := range plan.Tasks {
		if _, ok := kinds[t.Env]; ok {
			continue
		}
		k, err := opt.EnvKind(t.Env)
		if err != nil {
			return fmt.Errorf("eval: task %s: %w", t.ID, err)
		}
		kinds[t.Env] = k
	}
	tasks := map[string]int{}
	for i := range plan.Tasks {
		tasks[plan.Tasks[i].ID] = i
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var (
		mu      sync.Mutex
		firstEr error
		prog    = Progress{Run: plan.ID, Done: len(have), Total: len(plan.Units()), Since: time.Now()}
	)
	units := make(chan UnitKey)
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range units {
				t := &plan.Tasks[tasks[u.Task]]
				seed := plan.TaskSeed(u.Task, u.Rep)
				tr, err := agent.Run(ctx, t, kinds[t.Env], plan.Guidelines(u.Condition, u.Task), seed)
				if err != nil {
					continue // stopped: this unit runs again on resume
				}
				tr.Index, tr.Condition, tr.Rep = tasks[u.Task]+1, u.Condition, u.Rep
				if tr.Status != Errored {
					tr.Status, tr.Grade = gradeRun(ctx, agent.Probe, t, &tr)
				}
				if ctx.Err() != nil {
					continue
				}
				err = log.Append(&tr)
				mu.Lock()
				if err != nil {
					if firstEr == nil {
						firstEr = err
					}
					stop()
				} else {
					prog.Done++
					prog.Session++
					p := prog
					p.Last = &tr
					if opt.OnProgress != nil {
						opt.OnProgress(p)
					}
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, u := range todo {
		select {
		case units <- u:
		case <-ctx.Done():
			break feed
		}
	}
	close(units)
	wg.Wait()
	if firstEr != nil {
		return firstEr
	}
	return ctx.Err() // the caller's: stopped before the end
}

// gradeRun grades a task run: its own note (prose, over budget) stays
// when the grade is a failure for want of an answer.
func gradeRun(ctx context.Context, run ProbeFunc, t *review.Task, tr *TaskRun) (Status, string) {
	st, why := Grade(ctx, run, t, tr.Answer, tr.Answered)
	if st == Failed && !tr.Answered && tr.Grade != "" {
		why = tr.Grade
	}
	return st, why
}
