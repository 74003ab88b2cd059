package widget

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/ui/common"
)

// Detail is a scrollable pane body: text its owner wrapped at Width, cut
// and padded to that width once, in SetContent, so that a keystroke's View
// joins cached lines and measures nothing. The scroll keys are the
// KeyMap's movement keys (common.ScrollPane); the mouse wheel is the
// owner's to route (Scroll), since the pane under the pointer is the one
// that scrolls.
type Detail struct {
	vp    viewport.Model
	lines []string // the content, each line exactly Width wide
}

// NewDetail returns an empty detail pane of size 0×0.
func NewDetail() Detail {
	vp := viewport.New(0, 0)
	vp.MouseWheelEnabled = false
	return Detail{vp: vp}
}

// SetSize sets the width and height of the text (inside any frame). The
// content is not re-wrapped: the owner sets it again at the new width.
func (d *Detail) SetSize(w, h int) {
	d.vp.Width, d.vp.Height = max(w, 1), max(h, 1)
}

// Width is the width the content is wrapped to.
func (d *Detail) Width() int { return d.vp.Width }

// Height is the number of lines shown.
func (d *Detail) Height() int { return d.vp.Height }

// SetContent replaces the text (wrapped at Width) and keeps the scroll
// position where it still fits.
func (d *Detail) SetContent(s string) {
	d.vp.SetContent(s)
	if s == "" {
		d.lines = nil
		return
	}
	d.lines = common.FitLines(s, d.vp.Width)
}

// Lines returns the content's lines, each exactly Width wide.
func (d *Detail) Lines() []string { return d.lines }

// Update scrolls by a movement key and reports whether msg was one.
func (d *Detail) Update(k common.KeyMap, msg tea.KeyMsg) bool {
	return common.ScrollPane(k, &d.vp, msg)
}

// Scroll moves n lines down (up when n < 0), as the mouse wheel does.
func (d *Detail) Scroll(n int) {
	if n < 0 {
		d.vp.ScrollUp(-n)
	} else {
		d.vp.ScrollDown(n)
	}
}

// GotoTop scrolls to the first line.
func (d *Detail) GotoTop() { d.vp.GotoTop() }

// YOffset is the first line shown.
func (d *Detail) YOffset() int { return d.vp.YOffset }

// SetYOffset scrolls so that line n is the first shown (clamped).
func (d *Detail) SetYOffset(n int) { d.vp.SetYOffset(n) }

// Overflows reports whether the content is taller than the pane.
func (d *Detail) Overflows() bool { return d.vp.TotalLineCount() > d.vp.Height }

// ScrollPercent is how far down the pane is scrolled, " · scrolled 42%",
// when the content overflows; "" when it all shows.
func (d *Detail) ScrollPercent() string {
	if !d.Overflows() {
		return ""
	}
	return ScrollLabel(d.vp.ScrollPercent())
}

// ScrollLabel is a pane title's scroll position, frac of the way down
// (0 … 1): " · scrolled 42%", named so that a bare "0%" beside a title
// does not read as a score.
func ScrollLabel(frac float64) string {
	return fmt.Sprintf(" · scrolled %d%%", int(frac*100))
}

// Line returns line r of the window shown (0 = the first visible line),
// blank past the content's end.
func (d *Detail) Line(r int) string {
	if n := d.vp.YOffset + r; r >= 0 && r < d.vp.Height && n < len(d.lines) {
		return d.lines[n]
	}
	return strings.Repeat(" ", d.vp.Width)
}

// View returns the lines shown, Height of them, each Width wide.
func (d *Detail) View() string {
	out := make([]string, d.vp.Height)
	for r := range out {
		out[r] = d.Line(r)
	}
	return strings.Join(out, "\n")
}
