package bank

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// Direct Update tests of the record verbs on the sample world.

// openBank returns the screen over a fresh sample world, the first
// record's detail loaded.
func openBank(t *testing.T) (*Model, common.Deps) {
	t.Helper()
	deps := uitest.OpenSample(t)
	m := New(common.NewCommon(), deps).(*Model)
	m.SetSize(160, 45)
	uitest.Drain(t, m, m.Init())
	if !m.ready() {
		t.Fatal("the first record's detail did not load")
	}
	return m, deps
}

// sendKey sends k and runs what follows; it returns the footer text, if any.
func sendKey(t *testing.T, m *Model, k tea.KeyMsg) string {
	t.Helper()
	_, cmd := m.Update(k)
	text := ""
	for _, msg := range uitest.Drain(t, m, cmd) {
		if st, ok := msg.(common.Status); ok {
			text = st.Text
		}
	}
	return text
}

// editBehind writes a new version of id as another process would.
func editBehind(t *testing.T, s *store.Store, id string) {
	t.Helper()
	r, err := s.Record(id)
	if err != nil {
		t.Fatal(err)
	}
	r.Lemma += " (edited elsewhere)"
	if _, err := s.DecideRecords(context.Background(), review.RecordRequest{Verb: review.Edit,
		IDs: []string{id}, Record: r, Operator: "someone else"}); err != nil {
		t.Fatal(err)
	}
}

func record(t *testing.T, s *app.Service, id string) *review.Record {
	t.Helper()
	r, err := s.Record(id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestMergeRefusesChangedMark marks a record, sees it change behind the
// screen's back, then merges: the store refuses it and nothing is merged.
func TestMergeRefusesChangedMark(t *testing.T) {
	t.Parallel()
	m, deps := openBank(t)
	a := m.selected()
	sendKey(t, m, space) // mark a; the cursor moves to b
	b := m.selected()
	if b == a || !m.ready() {
		t.Fatalf("space did not move on from %s", a)
	}
	sendKey(t, m, uitest.Key("m"))
	if _, ok := m.overlay.(*editForm); !ok {
		t.Fatalf("m opened %T", m.overlay)
	}
	editBehind(t, uitest.Store(t, deps), a)
	text := sendKey(t, m, save)
	if !strings.Contains(text, "conflict: record "+a+" changed since it was read") {
		t.Fatalf("the merge of a changed record was not refused: %q", text)
	}
	for id, v := range map[string]int{a: 2, b: 1} {
		if r := record(t, deps.Service, id); r.Status != review.Active || r.Version != v || r.Provenance.MergedInto != "" {
			t.Errorf("%s after the refused merge: %s v%d into %q; want active v%d", id, r.Status, r.Version, r.Provenance.MergedInto, v)
		}
	}
}

// TestDeleteRefusesChangedRecord asks to delete the selected record; it
// changes before y: nothing is retired.
func TestDeleteRefusesChangedRecord(t *testing.T) {
	t.Parallel()
	m, deps := openBank(t)
	id := m.selected()
	sendKey(t, m, uitest.Key("d"))
	editBehind(t, uitest.Store(t, deps), id)
	text := sendKey(t, m, uitest.Key("y"))
	if !strings.Contains(text, "conflict: record "+id+" changed since it was read") {
		t.Fatalf("deleting a changed record was not refused: %q", text)
	}
	if r := record(t, deps.Service, id); r.Status != review.Active || r.Version != 2 {
		t.Fatalf("%s after the refused delete: %s v%d", id, r.Status, r.Version)
	}
	if !m.ready() || m.detail.Record.Version != 2 {
		t.Errorf("the screen did not reload the changed record: %+v", m.detail)
	}
}

// TestVerifyDropsStaleResults: checks that ran for a version the record
// has left are not stored, and the screen says so.
func TestVerifyDropsStaleResults(t *testing.T) {
	t.Parallel()
	m, deps := openBank(t)
	id := m.selected()
	if len(m.detail.Record.Checks) == 0 {
		t.Fatalf("%s has no checks", id)
	}
	_, verify := m.Update(uitest.Key("v"))
	editBehind(t, uitest.Store(t, deps), id) // while the checks run
	text := ""
	for _, msg := range uitest.Drain(t, m, verify) {
		if st, ok := msg.(common.Status); ok {
			text = st.Text
		}
	}
	if !strings.Contains(text, "the results were not kept") {
		t.Errorf("a verify of an old version reported %q", text)
	}
	got, err := deps.Service.CheckResults(id)
	if err != nil || len(got) != 0 {
		t.Fatalf("check results of %s after a stale verify: %+v %v", id, got, err)
	}
}

// TestRecordTextIsPrintable: a lemma with a newline and an escape sequence
// stays on its row in the list, and shows escaped in the detail.
func TestRecordTextIsPrintable(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	m := New(common.NewCommon(), deps).(*Model)
	m.SetSize(160, 45)
	uitest.Drain(t, m, m.Init())
	id := m.selected()
	r := record(t, deps.Service, id)
	r.Lemma = "first line\nsecond \x1b[31mred"
	r.Steps = []string{"step\x07one"}
	if _, err := deps.Service.DecideRecords(context.Background(), review.RecordRequest{Verb: review.Edit,
		IDs: []string{id}, Record: r, Operator: "tester"}); err != nil {
		t.Fatal(err)
	}
	uitest.Drain(t, m, m.refresh())
	v := m.View()
	if strings.ContainsAny(v, "\x1b\x07") {
		t.Fatalf("the screen passes control characters through:\n%q", v)
	}
	uitest.CheckFits(t, "bank", v, 160, 45)
	for _, want := range []string{"first line second", `second \x1b[31mred`, `step 1: step\x07one`} {
		if !strings.Contains(v, want) {
			t.Errorf("the screen lacks %q:\n%s", want, v)
		}
	}
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, id+" ") && strings.Contains(l, "first line") && !strings.Contains(l, "second") {
			t.Errorf("the list row breaks at the lemma's newline: %q", l)
		}
	}
}

// TestUndoNothingSaysSo: u with no decision to undo says so once.
func TestUndoNothingSaysSo(t *testing.T) {
	t.Parallel()
	m, _ := openBank(t)
	if text := sendKey(t, m, uitest.Key("u")); text != "there is no decision to undo" {
		t.Fatalf("u on a bank with no decision: %q", text)
	}
}
