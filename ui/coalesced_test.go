package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// Keys that reach the program as one message ("]]]": typed faster than the
// terminal was read) count one by one outside a text field, and go to the
// search box whole once a / in them opened it.
func TestCoalescedKeysCountOneByOne(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := started(t, w.deps, 120, 40)
	m = drive(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("]]]")})
	if v := m.View(); !strings.Contains(v, "Review 4/15") {
		t.Fatalf(`"]]]" as one message did not move three proposals on:\n%s`, v)
	}
	m = drive(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("2/stars")})
	if v := m.View(); !strings.Contains(v, "[2 Bank") || !strings.Contains(v, "/ stars") {
		t.Fatalf(`"2/stars" as one message did not open the bank and search for stars:\n%s`, v)
	}
}
