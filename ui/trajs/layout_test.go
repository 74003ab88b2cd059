package trajs

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

func TestLayoutWidths(t *testing.T) {
	deps := openSample(t)
	for _, size := range [][2]int{{60, 12}, {80, 24}, {200, 50}, {500, 60}} {
		w, h := size[0], size[1]
		m := newScreen(t, deps)
		m.SetSize(w, h)
		for _, k := range []tea.Msg{nil, tea.KeyMsg{Type: tea.KeyEnter}, keyMsg("]")} {
			if k != nil {
				m.Update(k)
			}
			lines := strings.Split(m.View(), "\n")
			if len(lines) > h {
				t.Errorf("%dx%d after %v: %d lines", w, h, k, len(lines))
			}
			for i, l := range lines {
				if lw := lipgloss.Width(l); lw > w {
					t.Errorf("%dx%d after %v: line %d is %d wide", w, h, k, i, lw)
				}
			}
		}
	}
}
