package queue

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/ui/common"
)

// A verb pressed while the next proposal is still loading is not applied
// and says so in the footer, instead of vanishing.
func TestVerbWhileLoadingSaysSo(t *testing.T) {
	m := loaded(t)
	// ] moves on; its context has not arrived yet (the Cmd is not run).
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("]")})
	if cmd == nil || m.ready() {
		t.Fatalf("] did not start loading the next proposal (ready=%v)", m.ready())
	}
	next := m.current().ID
	_, cmd = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("r")})
	if cmd == nil {
		t.Fatal("r while loading returned no Cmd: the keystroke vanished")
	}
	st, ok := cmd().(common.Status)
	if !ok || !strings.Contains(st.Text, "reject not applied: "+next+" is still loading") {
		t.Fatalf("r while loading said %+v, want the footer to say it was not applied", st)
	}
	if p := m.current(); p == nil || p.ID != next {
		t.Fatalf("r while loading changed the queue: now on %v", p)
	}
}

// A verb that writes the record, pressed while the proposal's live
// re-runs are still running, says it waits for them; one that does not
// write (reject) is not held back.
func TestWriteWhileProbingSaysSo(t *testing.T) {
	m := loaded(t)
	if !m.Keys.Probe.Enabled() {
		t.Fatalf("the first proposal %s has nothing to run live", m.cur.P.ID)
	}
	// p starts the live runs; their results have not arrived (the Cmd is not run).
	if _, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("p")}); cmd == nil || !m.probing() {
		t.Fatal("p started no live run")
	}
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a")})
	if cmd == nil {
		t.Fatal("a while the live runs ran returned no Cmd: the keystroke vanished")
	}
	if st, ok := cmd().(common.Status); !ok || !strings.Contains(st.Text, "accept not applied: its live re-runs are still running") {
		t.Fatalf("a while the live runs ran said %+v, want the footer to say it waits for them", cmd())
	}
	if !m.Keys.Reject.Enabled() {
		t.Error("reject is held back by the live runs; only the verbs that write the record wait for them")
	}
}
