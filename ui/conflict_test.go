package ui

import (
	"context"
	"reflect"
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// TestConflict decides one of two proposals that target the same record;
// the other then shows the conflict banner, and accepting it anyway is
// refused with what changed, applying nothing.
func TestConflict(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := started(t, w.deps, 200, 60)
	m = drive(t, m, common.ShowProposal{ID: sample.PropConflictUpdate})
	m = drive(t, m, uitest.Key("a"))
	if v := m.View(); !strings.Contains(v, "accepted "+sample.PropConflictUpdate+" → "+sample.RecRefJoin+" v2") {
		t.Fatalf("no confirmation of the accept:\n%s", v)
	}

	m = drive(t, m, common.ShowProposal{ID: sample.PropConflictDelete})
	v := m.View()
	if !strings.Contains(v, "CONFLICT: conflict: record "+sample.RecRefJoin+" changed") {
		t.Fatalf("no conflict banner on %s:\n%s", sample.PropConflictDelete, v)
	}
	if !strings.Contains(v, sample.RecRefJoin+" v2 (proposal saw v1)") {
		t.Errorf("the diff does not say which version it is against:\n%s", v)
	}

	m = drive(t, m, uitest.Key("a")) // a delete proposal: a asks first
	if v := m.View(); !strings.Contains(v, "Delete: retire "+sample.RecRefJoin) {
		t.Fatalf("a on a delete proposal did not ask:\n%s", v)
	}
	m = drive(t, m, uitest.Key("y"))
	v = m.View()
	if !strings.Contains(v, "nothing applied — conflict: record "+sample.RecRefJoin+" changed") {
		t.Fatalf("accepting a conflicting proposal was not refused:\n%s", v)
	}
	r, err := w.store.Record(sample.RecRefJoin)
	if err != nil || r.Status != review.Active || r.Version != 2 {
		t.Fatalf("%s after the refused delete: %+v %v", sample.RecRefJoin, r, err)
	}
	p, err := w.store.Proposal(sample.PropConflictDelete)
	if err != nil || !p.Status.Open() {
		t.Fatalf("%s after the refused delete: %v %v", sample.PropConflictDelete, p.Status, err)
	}
}

// TestMergePickerStaleRecord chooses a record in the merge picker, changes
// it behind the picker's back (as another screen or process would), then
// confirms: the merge is refused with what changed and nothing is merged.
func TestMergePickerStaleRecord(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := started(t, w.deps, 200, 60)
	m = drive(t, m, common.ShowProposal{ID: sample.PropMerge})
	m = drive(t, m, uitest.Key("m"))
	found := regexp.MustCompile(`▸\[ \] (mem_\d+)`).FindStringSubmatch(m.View())
	if found == nil {
		t.Fatalf("the merge picker suggests no record:\n%s", m.View())
	}
	id := found[1]
	m = drive(t, m, uitest.Key(" "))
	if v := m.View(); !strings.Contains(v, "▸[x] "+id) || !strings.Contains(v, "- retire "+id) {
		t.Fatalf("space did not choose %s:\n%s", id, v)
	}
	before, err := w.store.Records(review.RecordFilter{})
	if err != nil {
		t.Fatal(err)
	}

	r, err := w.store.Record(id)
	if err != nil {
		t.Fatal(err)
	}
	r.Lemma += " (edited elsewhere)"
	if _, err := w.store.DecideRecords(context.Background(), review.RecordRequest{Verb: review.Edit,
		IDs: []string{id}, Record: r, Operator: "someone else"}); err != nil {
		t.Fatal(err)
	}

	m = drive(t, m, uitest.Key("enter"))  // the merge editor
	m = drive(t, m, uitest.Key("ctrl+s")) // commit
	if v := m.View(); !strings.Contains(v, "nothing applied — conflict: record "+id+" changed since it was read") {
		t.Fatalf("the merge of a record changed behind the picker was not refused:\n%s", v)
	}
	p, err := w.store.Proposal(sample.PropMerge)
	if err != nil || !p.Status.Open() {
		t.Fatalf("%s after the refused merge: %v %v", sample.PropMerge, p.Status, err)
	}
	after, err := w.store.Records(review.RecordFilter{})
	if err != nil || len(after) != len(before) {
		t.Fatalf("the refused merge wrote records: %d before, %d after (%v)", len(before), len(after), err)
	}
	for _, sid := range append(p.TargetIDs(), id) {
		r, err := w.store.Record(sid)
		if err != nil || r.Status != review.Active || r.Provenance.MergedInto != "" {
			t.Errorf("%s after the refused merge: %+v %v", sid, r, err)
		}
	}
	if r, _ := w.store.Record(id); r.Version != 2 {
		t.Errorf("%s is at v%d, want v2 (the edit from elsewhere, and nothing after)", id, r.Version)
	}
}

// TestHelpAndQuit opens and closes the help overlay and quits with q.
func TestHelpAndQuit(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := started(t, w.deps, 120, 40)
	m = drive(t, m, uitest.Key("?"))
	if v := m.View(); !strings.Contains(v, "Keys") || !strings.Contains(v, "undo") {
		t.Fatalf("help overlay:\n%s", v)
	}
	m = drive(t, m, uitest.Key("?"))
	if strings.Contains(m.View(), "Press ? or esc to close") {
		t.Fatal("? did not close the help")
	}
	_, cmd := m.Update(uitest.Key("q"))
	if !quits(cmd) {
		t.Fatal("q did not quit")
	}
	_, cmd = m.Update(tea.KeyMsg{Type: tea.KeyCtrlC})
	if !quits(cmd) {
		t.Fatal("ctrl+c did not quit")
	}
}

// quits reports whether cmd quits the program: tea.Quit, or a sequence
// (the screens release their claims first) that ends with it.
func quits(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	msg := cmd()
	if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Len() > 0 {
		last, ok := v.Index(v.Len() - 1).Interface().(tea.Cmd)
		return ok && last != nil && last() == tea.Quit()
	}
	return msg == tea.Quit()
}

// TestHelpNarrow opens the help overlay at 80x24 on every screen: the
// columns that do not fit beside the others go below them rather than
// being cut, so the screen keys and how to close the overlay stay visible.
func TestHelpNarrow(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := started(t, w.deps, 80, 24)
	for _, n := range []string{"1", "2", "4"} {
		m = drive(t, m, uitest.Key(n))
		m = drive(t, m, uitest.Key("?"))
		v := m.View()
		for _, want := range []string{"1 review", "q quit", "esc to close", "bottom"} {
			if !strings.Contains(v, want) {
				t.Errorf("screen %s: help at 80x24 lacks %q:\n%s", n, want, v)
			}
		}
		for _, l := range strings.Split(v, "\n") {
			if strings.HasPrefix(l, "│") && strings.Contains(l, "…") {
				t.Errorf("screen %s: help at 80x24 cuts a line: %q", n, l)
			}
		}
		uitest.CheckFits(t, "help", v, 80, 24)
		m = drive(t, m, uitest.Key("?"))
	}
}

// TestScreensSwitch visits every registered screen by its number key and
// comes back to the queue. A screen that takes typed text (the console's
// input) keeps the number keys until esc leaves its input.
func TestScreensSwitch(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := started(t, w.deps, 120, 40)
	for _, n := range []string{"2", "3", "4"} {
		m = drive(t, m, uitest.Key("1"))
		m = drive(t, m, uitest.Key(n))
		if tab := "[" + n + " "; !strings.Contains(m.View(), tab) {
			t.Errorf("key %s: the header does not show tab %q:\n%s", n, tab, m.View())
		}
		m = drive(t, m, uitest.Key("esc"))
	}
	m = drive(t, m, uitest.Key("1"))
	if v := m.View(); !strings.Contains(v, "Candidate "+sample.ProposalIDs[0]) {
		t.Errorf("back on the queue:\n%s", v)
	}
}
