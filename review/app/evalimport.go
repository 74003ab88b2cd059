package app

import (
	"errors"
	"fmt"
	"strings"

	"github.com/memreview/memreview/curator/eval"
	"github.com/memreview/memreview/review"
)

// Closing the loop: an eval run's transcripts become trajectories of the
// bank, their grade the outcome, so that the curator distils them and its
// proposals join the queue — eval, trajectories, curator, review, eval.

// EvalTrajectoryID is the trajectory a task run's transcript imports as.
func EvalTrajectoryID(run string, tr *EvalTaskRun) string {
	cond := strings.NewReplacer("/", "_", "\\", "_", " ", "_").Replace(tr.Condition)
	return fmt.Sprintf("%s_%s_%s_r%d", run, tr.Task, cond, tr.Rep)
}

// ImportEval imports run id's transcripts as trajectories: the task, the
// messages as steps, the records given as retrieved, and the grade as the
// outcome (a pass or failure with the pass-discounted reward; an
// ungradable task an unknown outcome). Transcripts already in the bank are
// left as they are; it returns how many it added.
func (s *Service) ImportEval(id string) (int, error) {
	dir, err := s.evalDir(id)
	if err != nil {
		return 0, err
	}
	p, runs, _, err := eval.Read(dir)
	if err != nil {
		return 0, err
	}
	text := map[string]string{}
	env := map[string]string{}
	for _, t := range p.Tasks {
		text[t.ID], env[t.ID] = t.Text, t.Env
	}
	var trs []review.Trajectory
	for i := range runs {
		tr := &runs[i]
		tid := EvalTrajectoryID(p.ID, tr)
		if _, err := s.b.Trajectory(tid); err == nil {
			continue
		} else if !errors.Is(err, review.ErrNotFound) {
			return 0, err
		}
		out := review.Outcome{Passed: tr.Passed(), Reward: eval.Reward(tr, p.Budget), Notes: evalNote(tr)}
		if tr.Status == eval.Ungradable {
			out = review.Outcome{Kind: review.OutcomeUnknown, Notes: evalNote(tr)}
		}
		trs = append(trs, review.Trajectory{ID: tid, Env: env[tr.Task], Task: text[tr.Task], Model: tr.Model, Format: "memreview-eval",
			Steps: tr.Messages, Outcome: out, Retrieved: tr.Retrieved, Started: tr.Started, Ended: tr.Ended})
	}
	if len(trs) == 0 {
		return 0, nil
	}
	if err := s.b.PutTrajectories(trs); err != nil {
		return 0, fmt.Errorf("eval: import the transcripts of %s: %w", id, err)
	}
	s.afterBulkWrite("eval transcripts of " + id)
	return len(trs), nil
}

// evalNote is a transcript's outcome note.
func evalNote(tr *EvalTaskRun) string {
	note := fmt.Sprintf("eval %s under %s, run %d: %s", tr.Task, tr.Condition, tr.Rep, tr.Status)
	if tr.Grade != "" {
		note += " — " + tr.Grade
	}
	if tr.Error != "" {
		note += " — " + tr.Error
	}
	return note
}
