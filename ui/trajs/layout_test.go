package trajs

import (
	"fmt"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/ui/uitest"
)

func TestLayoutWidths(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	for _, size := range [][2]int{{60, 12}, {80, 24}, {200, 50}, {500, 60}} {
		w, h := size[0], size[1]
		m := newScreen(t, deps)
		m.SetSize(w, h)
		for _, k := range []tea.Msg{nil, tea.KeyMsg{Type: tea.KeyEnter}, uitest.Key("]")} {
			if k != nil {
				m.Update(k)
			}
			uitest.CheckFits(t, fmt.Sprintf("after %v", k), m.View(), w, h)
		}
	}
}
