package bank

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/ui/uitest"
)

// TestLayoutWidths draws the list, the detail and the facet picker at
// narrow, usual and very wide sizes.
func TestLayoutWidths(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{60, 12}, {80, 24}, {99, 30}, {100, 30}, {200, 50}, {500, 60}} {
		w, h := size[0], size[1]
		m := newFakeScreen(t, &fakeSource{n: 1000}, w, h)
		uitest.CheckFits(t, "list", m.View(), w, h)
		if rows(m.View()) == 0 {
			t.Errorf("%dx%d: no rows drawn", w, h)
		}
		_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
		uitest.Drain(t, m, cmd)
		uitest.CheckFits(t, "detail", m.View(), w, h)
		if !strings.Contains(m.View(), "Detail rec_000000") {
			t.Errorf("%dx%d: enter did not show the detail:\n%s", w, h, m.View())
		}
		_, cmd = m.Update(uitest.Key("f"))
		uitest.Drain(t, m, cmd)
		uitest.CheckFits(t, "facets", m.View(), w, h)
		if !strings.Contains(m.View(), "Facets") {
			t.Errorf("%dx%d: f did not open the facets", w, h)
		}
	}
}

// TestThousands: counts of a large bank are written with commas.
func TestThousands(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 96952: "96,952", 1000000: "1,000,000", -1234: "-1,234"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
	if got := plural(969712, "record"); got != "969,712 records" {
		t.Errorf("plural(969712) = %q", got)
	}
}
