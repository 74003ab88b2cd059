package console

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
)

func TestLayoutWidths(t *testing.T) {
	deps := openSample(t)
	for _, size := range [][2]int{{60, 12}, {80, 24}, {200, 50}, {500, 60}} {
		w, h := size[0], size[1]
		c := newConsole(t, deps)
		c.m.SetSize(w, h)
		for _, q := range []string{"SELECT * FROM items_g1", "DELETE FROM items_g1"} {
			c.run(q)
			lines := strings.Split(c.m.View(), "\n")
			if len(lines) > h {
				t.Errorf("%q at %dx%d: %d lines", q, w, h, len(lines))
			}
			for i, l := range lines {
				if lw := lipgloss.Width(l); lw > w {
					t.Errorf("%q at %dx%d: line %d is %d wide", q, w, h, i, lw)
				}
			}
		}
	}
}
