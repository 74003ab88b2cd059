package app

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/memreview/memreview/curator/eval"
	"github.com/memreview/memreview/review"
)

// Attribution across the bank's eval runs: what a record did for the
// tasks that retrieved it (bank against none), and what each decision
// that changed it did (bank@before against bank@after), shown by history,
// the bank screen's record detail, and used by sort by worth.

// RecordEffect is a record's effect in one run.
type RecordEffect = eval.RecordEffect

// DecisionEffect is a decision's effect in one run.
type DecisionEffect = eval.DecisionEffect

// DecisionEval is one decision that changed a record, and its effect in
// one run that compared the bank before and after it.
type DecisionEval struct {
	Decision string
	Verb     review.Verb
	Effect   DecisionEffect
}

// String says it in one line: "dec_0003 accept recovered 3 tasks,
// regressed 1 (…)".
func (d DecisionEval) String() string {
	return fmt.Sprintf("%s %s %s", d.Decision, d.Verb, d.Effect.String())
}

// RecordEval is what the bank's runs say of one record, newest run first.
type RecordEval struct {
	Record    string
	Runs      []RecordEffect
	Decisions []DecisionEval
}

// Empty reports whether no run says anything of the record.
func (e RecordEval) Empty() bool { return len(e.Runs) == 0 && len(e.Decisions) == 0 }

// RecordEval reads what the bank's eval runs say of record id.
func (s *Service) RecordEval(id string) (RecordEval, error) {
	out := RecordEval{Record: id}
	runs, err := s.evalRunsRead()
	if err != nil || len(runs) == 0 {
		return out, err
	}
	h, err := s.b.History(id)
	if err != nil {
		return out, err
	}
	verbs := map[string]review.Verb{}
	for _, v := range h {
		if v.Decision != "" {
			verbs[v.Decision] = ""
		}
	}
	for d := range verbs {
		if dec, err := s.b.Decision(d); err == nil {
			verbs[d] = dec.Verb
		}
	}
	for _, r := range runs {
		if e := r.records[id]; e != nil {
			out.Runs = append(out.Runs, *e)
		}
		for _, de := range r.decisions {
			if v, ok := verbs[de.Decision]; ok {
				out.Decisions = append(out.Decisions, DecisionEval{Decision: de.Decision, Verb: v, Effect: de})
			}
		}
	}
	return out, nil
}

// WorthAll is every retrieved record's worth: from the newest eval run
// whose bank condition gave the record to some task, where one did (with
// the bank against without memory, review.Worth.Eval naming the run), else
// from the bank's trajectories (review.WorthOf).
func (s *Service) WorthAll() (map[string]review.Worth, error) {
	trs, err := s.b.Trajectories()
	if err != nil {
		return nil, err
	}
	out := review.WorthOf(trs)
	runs, err := s.evalRunsRead()
	if err != nil {
		s.opt.Warnf("worth: the eval runs could not be read (%v); worth is from trajectories alone", err)
		return out, nil
	}
	fromEval := map[string]bool{}
	for _, r := range runs {
		for id, e := range r.records {
			if fromEval[id] || len(e.Tasks) == 0 {
				continue
			}
			fromEval[id] = true
			out[id] = review.Worth{Record: id, Retrieved: len(e.Tasks), Passed: e.Bank, BankTasks: len(e.Tasks), BankPassed: e.None, Eval: e.Run}
		}
	}
	return out, nil
}

// evalRead is one run's attribution, as read.
type evalRead struct {
	id        string
	started   time.Time
	records   map[string]*RecordEffect
	decisions []DecisionEffect
}

// evalCache keeps each run's attribution until its files change, so that
// moving through the bank screen does not read every run again.
type evalCache struct {
	mu   sync.Mutex
	runs map[string]evalCached
}

type evalCached struct {
	size  int64
	mtime time.Time
	read  evalRead
}

// evalRunsRead reads every run's attribution, newest first; a run that
// cannot be read is skipped (eval list says why).
func (s *Service) evalRunsRead() ([]evalRead, error) {
	root, err := s.evalRoot()
	if err != nil {
		return nil, nil
	}
	infos, err := s.EvalRuns()
	if err != nil {
		return nil, err
	}
	s.evals.mu.Lock()
	defer s.evals.mu.Unlock()
	if s.evals.runs == nil {
		s.evals.runs = map[string]evalCached{}
	}
	var out []evalRead
	for _, in := range infos {
		if in.Err != nil {
			continue
		}
		dir := filepath.Join(root, in.ID)
		st, err := os.Stat(filepath.Join(dir, eval.ResultsFile))
		if err != nil {
			continue
		}
		if c, ok := s.evals.runs[in.ID]; ok && c.size == st.Size() && c.mtime.Equal(st.ModTime()) {
			out = append(out, c.read)
			continue
		}
		p, runs, _, err := eval.Read(dir)
		if err != nil {
			continue
		}
		r := evalRead{id: p.ID, started: p.Started, records: eval.RecordEffects(p, runs), decisions: eval.DecisionEffects(p, runs)}
		s.evals.runs[in.ID] = evalCached{size: st.Size(), mtime: st.ModTime(), read: r}
		out = append(out, r)
	}
	return out, nil
}
