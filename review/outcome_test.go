package review

import (
	"strings"
	"testing"
	"time"
)

// Only a reward says pass or fail: a run with no outcome, or one whose
// outcome is not a reward, neither passed nor failed, in its words, the
// index term and a record's worth (issue 23 item 11).
func TestOutcomesThatAreNotRewards(t *testing.T) {
	pass := Outcome{Passed: true, Reward: 0.94}
	fail := Outcome{Reward: 0}
	unknown := Outcome{Kind: OutcomeUnknown}
	value := Outcome{Kind: OutcomeValue, Value: "submitted"}
	for _, c := range []struct {
		o                 Outcome
		failed, succeeded bool
		term, words       string
	}{
		{pass, false, true, "true", "passed, reward 0.94"},
		{fail, true, false, "false", "failed, reward 0.00"},
		{unknown, false, false, "unknown", "outcome unknown"},
		{value, false, false, "unknown", "ended: submitted"},
	} {
		if c.o.Failed() != c.failed || c.o.Succeeded() != c.succeeded || c.o.PassedTerm() != c.term || c.o.Words() != c.words {
			t.Errorf("%+v: failed %v succeeded %v term %q words %q", c.o, c.o.Failed(), c.o.Succeeded(), c.o.PassedTerm(), c.o.Words())
		}
	}
	at := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var trs []Trajectory
	for i, o := range []Outcome{pass, fail, unknown, value, unknown} {
		trs = append(trs, Trajectory{ID: "t" + string(rune('1'+i)), Outcome: o, Retrieved: []string{"mem_1"}, Ended: at.Add(time.Duration(i) * time.Hour)})
	}
	w := WorthOf(trs)["mem_1"]
	if w.Retrieved != 5 || w.Passed != 1 || w.Failed() != 1 || w.Unrewarded != 3 || w.BankUnrewarded != 3 || w.MostlyFailed() {
		t.Errorf("worth %+v: failed %d, mostly failed %v", w, w.Failed(), w.MostlyFailed())
	}
	if s := w.String(); !strings.Contains(s, "1 passed, 1 failed, 3 without a reward") || !strings.Contains(s, "1 of 5 passed (3 without a reward)") {
		t.Errorf("worth reads %q", s)
	}
	if l := w.Lift(); l != 0 {
		t.Errorf("lift %v, want 0: the record's rewarded tasks did as the bank's", l)
	}
}
