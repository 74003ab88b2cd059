package console

import (
	"fmt"
	"testing"

	"github.com/memreview/memreview/ui/uitest"
)

func TestLayoutWidths(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	for _, size := range [][2]int{{60, 12}, {80, 24}, {200, 50}, {500, 60}} {
		w, h := size[0], size[1]
		c := newConsole(t, deps)
		c.m.SetSize(w, h)
		for _, q := range []string{"SELECT * FROM items_g1", "DELETE FROM items_g1"} {
			c.run(q)
			uitest.CheckFits(t, fmt.Sprintf("%q", q), c.m.View(), w, h)
		}
	}
}
