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
