package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// TestGolden compares the review screen with testdata/TestGolden/*.golden
// at three sizes (go test ./ui -run TestGolden -update rewrites them).
func TestGolden(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			m := started(t, w.deps, sz[0], sz[1])
			golden.RequireEqual(t, []byte(m.View()))
		})
	}
	// A proposal with targets: the diff, and the raw steps with the cited
	// range marked.
	t.Run("update-raw-200x60", func(t *testing.T) {
		m := started(t, w.deps, 200, 60)
		m = drive(t, m, common.ShowProposal{ID: sample.PropUpdate})
		m = drive(t, m, uitest.Key("t"))
		golden.RequireEqual(t, []byte(m.View()))
	})
}

// layoutWidths are the widths around every layout boundary: the minimum
// (60), the stacked panes (below 100 and 120) and the wide ones.
var layoutWidths = []int{59, 60, 61, 80, 99, 100, 101, 119, 120, 121, 200, 300}

// TestLayout resizes the review screen, in several states, through the
// boundary widths (layoutWidths): no panic, no line wider than the
// terminal, no more lines than it has.
func TestLayout(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	states := []struct {
		name string
		keys []tea.Msg
	}{
		{"first", nil},
		{"raw steps", []tea.Msg{uitest.Key("t")}},
		{"merge picker", []tea.Msg{common.ShowProposal{ID: sample.PropMerge}, uitest.Key("m")}},
		{"merge editor", []tea.Msg{common.ShowProposal{ID: sample.PropMerge}, uitest.Key("m"), uitest.Key(" "), uitest.Key("enter")}},
		{"narrow form", []tea.Msg{common.ShowProposal{ID: sample.PropNarrow}, uitest.Key("n")}},
		{"edit form", []tea.Msg{common.ShowProposal{ID: sample.PropUpdate}, uitest.Key("e")}},
		{"filter", []tea.Msg{uitest.Key("f")}},
		{"delete question", []tea.Msg{common.ShowProposal{ID: sample.PropDelete}, uitest.Key("d")}},
		{"help", []tea.Msg{uitest.Key("?")}},
		{"probes pane", []tea.Msg{common.ShowProposal{ID: sample.PropConflictUpdate}, uitest.Key("tab"), uitest.Key("tab"), uitest.Key("p")}},
		{"zoomed", []tea.Msg{uitest.Key("tab"), uitest.Key("z")}},
		{"queue list", []tea.Msg{uitest.Key("L"), uitest.Key("e"), uitest.Key("*")}},
		{"queue list question", []tea.Msg{uitest.Key("L"), uitest.Key("*"), uitest.Key("s")}},
	}
	for _, st := range states {
		t.Run(st.name, func(t *testing.T) {
			m := started(t, w.deps, 200, 60)
			for _, k := range st.keys {
				m = drive(t, m, k)
			}
			for _, h := range []int{14, 15, 24, 60} {
				for _, width := range layoutWidths {
					m = drive(t, m, tea.WindowSizeMsg{Width: width, Height: h})
					v := m.View()
					if uitest.CheckFits(t, st.name, v, width, h); t.Failed() {
						t.FailNow() // one size is enough to show what broke
					}
					if (width < MinWidth || h < MinHeight) != strings.Contains(v, "terminal too small") {
						t.Fatalf("%s at %dx%d: too-small notice shown=%v", st.name, width, h, !(width < MinWidth || h < MinHeight))
					}
				}
			}
		})
	}
}

// BenchmarkKeystroke measures one keystroke on the review screen at
// 200x60: Update (scrolling the focused pane) and the View that follows.
func BenchmarkKeystroke(b *testing.B) {
	w := newWorld(b)
	m := started(b, w.deps, 200, 60)
	m = drive(b, m, uitest.Key("t")) // raw steps: a long trajectory pane
	keys := []tea.Msg{uitest.Key("j"), uitest.Key("k")}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		m, _ = m.Update(keys[i%2])
		_ = m.View()
	}
}
