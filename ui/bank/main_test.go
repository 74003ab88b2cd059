package bank

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/ui/uitest"
)

func TestMain(m *testing.M) { uitest.Main(m, removeBigBank) }

// Keys the direct tests send (the flows in flow_test.go have their own).
var (
	save  = tea.KeyMsg{Type: tea.KeyCtrlS} // a record form's save (enter breaks the lemma's line)
	space = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
)
