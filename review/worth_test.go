package review

import (
	"testing"
	"time"
)

func TestWorthOf(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	trs := []Trajectory{
		{ID: "t1", Ended: day(1), Outcome: Outcome{Passed: true}, Retrieved: []string{"a"}},
		{ID: "t2", Ended: day(2), Outcome: Outcome{Passed: false}, Retrieved: []string{"a", "b"}},
		{ID: "t3", Ended: day(3), Outcome: Outcome{Passed: true}},
		{ID: "t4", Ended: day(4), Outcome: Outcome{Passed: false}, Retrieved: []string{"a", "b"}},
		{ID: "t5", Started: day(9), Outcome: Outcome{Passed: true}},
	}
	w := WorthOf(trs)
	a, b := w["a"], w["b"]
	if a.Retrieved != 3 || a.Passed != 1 || a.BankTasks != 4 || a.BankPassed != 2 || !a.From.Equal(day(1)) || !a.To.Equal(day(4)) {
		t.Errorf("a: %+v", a)
	}
	if b.Retrieved != 2 || b.Passed != 0 || b.BankTasks != 3 || b.BankPassed != 1 || !b.MostlyFailed() {
		t.Errorf("b: %+v (mostly failed %v)", b, b.MostlyFailed())
	}
	if a.MostlyFailed() != true || a.Lift() >= 0 {
		t.Errorf("a: mostly failed %v, lift %v", a.MostlyFailed(), a.Lift())
	}
	if _, ok := w["c"]; ok || (Worth{}).String() != "retrieved by no task" {
		t.Errorf("a record no task retrieved: %v", w["c"])
	}
}
