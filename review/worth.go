package review

import (
	"fmt"
	"sort"
	"time"
)

// Worth is what a record has done for the tasks that retrieved it: how many
// retrieved it and how they ended, against how every task of the bank
// ended over the same period (the first to the last task that retrieved
// it). Counts, not a bare percentage: two passes of two is not ninety of a
// hundred.
type Worth struct {
	Record    string `json:"record"`
	Retrieved int    `json:"retrieved"` // tasks that retrieved the record
	Passed    int    `json:"passed"`    // of those, how many passed
	// Unrewarded: of those, how many carry no reward outcome (none, or a
	// value): they neither passed nor failed.
	Unrewarded int       `json:"unrewarded,omitempty"`
	From       time.Time `json:"from,omitempty"`
	To         time.Time `json:"to,omitempty"` // the last task that retrieved it
	// BankTasks and BankPassed count every task of the bank that ended in
	// [From, To], and how many of them passed; BankUnrewarded how many
	// carry no reward outcome.
	BankTasks      int `json:"bank_tasks"`
	BankPassed     int `json:"bank_passed"`
	BankUnrewarded int `json:"bank_unrewarded,omitempty"`
	// Eval, when set, names the eval run the worth comes from instead:
	// Retrieved and Passed are the tasks whose bank condition retrieved
	// the record and how many passed with the bank; BankTasks and
	// BankPassed the same tasks and how many passed without memory.
	Eval string `json:"eval,omitempty"`
}

// Failed is how many of the tasks that retrieved the record failed: those
// with a reward outcome that did not pass.
func (w Worth) Failed() int { return w.Retrieved - w.Passed - w.Unrewarded }

// MostlyFailed reports whether most tasks that retrieved the record and
// carry a reward failed (at least two did): the operator should look at it.
func (w Worth) MostlyFailed() bool {
	n := w.Retrieved - w.Unrewarded
	return n >= 2 && 2*w.Failed() > n
}

// Lift is the record's pass rate minus the bank's over the same period,
// over the tasks that carry a reward, each smoothed by one pass and one
// failure so that few tasks say little; 0 for a record no such task
// retrieved. It orders records by worth.
func (w Worth) Lift() float64 {
	if w.Retrieved-w.Unrewarded == 0 {
		return 0
	}
	rate := func(p, n int) float64 { return float64(p+1) / float64(n+2) }
	return rate(w.Passed, w.Retrieved-w.Unrewarded) - rate(w.BankPassed, w.BankTasks-w.BankUnrewarded)
}

// String says it in one line: "retrieved by 3 tasks: 1 passed, 2 failed;
// the bank over the same period: 9 of 14 passed".
func (w Worth) String() string {
	if w.Retrieved == 0 {
		return "retrieved by no task"
	}
	if w.Eval != "" {
		return fmt.Sprintf("in eval %s: retrieved by %d task%s: %d passed with the bank, %d without memory",
			w.Eval, w.Retrieved, plural(w.Retrieved), w.Passed, w.BankPassed)
	}
	s := fmt.Sprintf("retrieved by %d task%s: %d passed, %d failed", w.Retrieved, plural(w.Retrieved), w.Passed, w.Failed())
	if w.Unrewarded > 0 {
		s += fmt.Sprintf(", %d without a reward", w.Unrewarded)
	}
	s += fmt.Sprintf("; the bank over the same period (%s – %s): %d of %d passed",
		w.From.Format("2006-01-02"), w.To.Format("2006-01-02"), w.BankPassed, w.BankTasks)
	if w.BankUnrewarded > 0 {
		s += fmt.Sprintf(" (%d without a reward)", w.BankUnrewarded)
	}
	if w.MostlyFailed() {
		s += " — mostly failed tasks"
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// When is the time a trajectory counts at: its end, else its start.
func (t *Trajectory) When() time.Time {
	if !t.Ended.IsZero() {
		return t.Ended
	}
	return t.Started
}

// WorthOf computes the worth of every record that trajs retrieved, keyed by
// record id, in one pass over the trajectories (for sorting a whole bank).
func WorthOf(trs []Trajectory) map[string]Worth {
	type ev struct {
		at                 time.Time
		passed, unrewarded bool
	}
	evs := make([]ev, len(trs))
	for i := range trs {
		o := trs[i].Outcome
		evs[i] = ev{trs[i].When(), o.Succeeded(), !o.Rewarded()}
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].at.Before(evs[j].at) })
	passedBefore := make([]int, len(evs)+1) // passes among evs[:i]
	unrewardedBefore := make([]int, len(evs)+1)
	for i, e := range evs {
		passedBefore[i+1], unrewardedBefore[i+1] = passedBefore[i], unrewardedBefore[i]
		if e.passed {
			passedBefore[i+1]++
		}
		if e.unrewarded {
			unrewardedBefore[i+1]++
		}
	}
	out := map[string]Worth{}
	for i := range trs {
		t := &trs[i]
		at := t.When()
		for _, id := range t.Retrieved {
			w := out[id]
			if w.Retrieved == 0 || at.Before(w.From) {
				w.From = at
			}
			if w.Retrieved == 0 || at.After(w.To) {
				w.To = at
			}
			w.Record = id
			w.Retrieved++
			switch {
			case t.Outcome.Succeeded():
				w.Passed++
			case !t.Outcome.Rewarded():
				w.Unrewarded++
			}
			out[id] = w
		}
	}
	for id, w := range out {
		lo := sort.Search(len(evs), func(i int) bool { return !evs[i].at.Before(w.From) })
		hi := sort.Search(len(evs), func(i int) bool { return evs[i].at.After(w.To) })
		w.BankTasks, w.BankPassed = hi-lo, passedBefore[hi]-passedBefore[lo]
		w.BankUnrewarded = unrewardedBefore[hi] - unrewardedBefore[lo]
		out[id] = w
	}
	return out
}
