package widget

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/ui/common"
)

// Panes is the pane manager of a screen of several framed, titled panes
// (the review screen's trajectory, candidate and probes): it owns the
// focus, the stacking and the zoom. From Wide columns on the panes sit
// side by side, the focused one's frame drawn thick; below it they are
// stacked: one shows at a time under a line of tabs, and NextPane moves
// between them. Zoom gives the focused pane the whole body, stacked style.
// Each pane's body is a Detail the owner fills at its Width.
type Panes struct {
	styles *common.Styles
	titles []string
	wide   int
	bodies []Detail
	focus  int
	zoomed bool
	w, h   int
}

// NewPanes returns a manager of len(titles) panes, side by side from wide
// columns on.
func NewPanes(st *common.Styles, wide int, titles ...string) *Panes {
	p := &Panes{styles: st, titles: titles, wide: wide, bodies: make([]Detail, len(titles))}
	for i := range p.bodies {
		p.bodies[i] = NewDetail()
	}
	return p
}

// SetSize sets the area the panes (and, stacked, their tabs line) fill
// and sizes every body; the owner re-renders the content at the bodies'
// widths when they changed.
func (p *Panes) SetSize(w, h int) {
	p.w, p.h = w, h
	p.layout()
}

// SideBySide reports whether the panes show side by side (wide enough and
// not zoomed).
func (p *Panes) SideBySide() bool { return p.w >= p.wide && !p.zoomed }

// Focus is the focused pane.
func (p *Panes) Focus() int { return p.focus }

// SetFocus focuses pane i.
func (p *Panes) SetFocus(i int) {
	if i >= 0 && i < len(p.bodies) {
		p.focus = i
	}
}

// SetZoom zooms the focused pane in or out; the bodies' widths change.
func (p *Panes) SetZoom(on bool) {
	p.zoomed = on
	p.layout()
}

// Body returns pane i's body.
func (p *Panes) Body(i int) *Detail { return &p.bodies[i] }

// Focused returns the focused pane's body.
func (p *Panes) Focused() *Detail { return &p.bodies[p.focus] }

// Len is the number of panes.
func (p *Panes) Len() int { return len(p.bodies) }

// HandleKey moves the focus (NextPane), zooms (Zoom) or scrolls the
// focused pane (the movement keys). handled says msg was one of them;
// resized that the bodies' widths changed, so their content must be
// rendered again.
func (p *Panes) HandleKey(k common.KeyMap, msg tea.KeyMsg) (handled, resized bool) {
	switch {
	case p.bodies[p.focus].Update(k, msg):
		return true, false
	case key.Matches(msg, k.NextPane):
		p.focus = (p.focus + 1) % len(p.bodies)
		return true, false
	case key.Matches(msg, k.Zoom):
		p.SetZoom(!p.zoomed)
		return true, true
	}
	return false, false
}

// HandleWheel scrolls with the mouse wheel and reports whether msg was a
// wheel event. Side by side, the pane under the pointer takes the focus
// first; x is the pointer's column within the panes.
func (p *Panes) HandleWheel(msg tea.MouseMsg) bool {
	if msg.Button != tea.MouseButtonWheelUp && msg.Button != tea.MouseButtonWheelDown {
		return false
	}
	if p.SideBySide() {
		x, widths := msg.X, p.Widths()
		i := 0
		for ; i < len(widths)-1 && x >= widths[i]; i++ {
			x -= widths[i]
		}
		p.focus = i
	}
	if msg.Button == tea.MouseButtonWheelUp {
		p.bodies[p.focus].Scroll(-3)
	} else {
		p.bodies[p.focus].Scroll(3)
	}
	return true
}

// Widths returns the outer width of each pane shown (0 = hidden): side by
// side, equal thirds (the last takes what is left); stacked, the focused
// pane takes the whole width.
func (p *Panes) Widths() []int {
	w := make([]int, len(p.bodies))
	if !p.SideBySide() {
		w[p.focus] = p.w
		return w
	}
	rest := p.w
	for i := range w[:len(w)-1] {
		w[i] = p.w / len(w)
		rest -= w[i]
	}
	w[len(w)-1] = rest
	return w
}

// frameHeight is the height of the frames: the area less the tabs line
// when stacked.
func (p *Panes) frameHeight() int {
	if p.SideBySide() {
		return max(p.h, 0)
	}
	return max(p.h-1, 0)
}

// layout sizes the bodies for the current width, height and zoom; hidden
// panes keep the width they are shown at.
func (p *Panes) layout() {
	fw, fh := p.styles.Pane.GetFrameSize()
	widths := p.Widths()
	for i := range p.bodies {
		w := widths[i]
		if !p.SideBySide() {
			w = p.w
		}
		p.bodies[i].SetSize(max(w-fw, 1), max(p.frameHeight()-fh-1, 1)) // less the title line
	}
}

// Tabs is the stacked panes' tabs line: the pane titles, the shown one
// marked, and how to move between them.
func (p *Panes) Tabs() string {
	var parts []string
	for i, t := range p.titles {
		parts = append(parts, p.styles.TabLabel(t, i == p.focus))
	}
	hint := "  tab: next pane"
	if p.zoomed {
		hint += " · z: all panes"
	}
	return ansi.Truncate(strings.Join(parts, "")+p.styles.Subtle.Render(hint), p.w, "…")
}

// View draws the panes: stacked, the tabs line and the focused pane;
// side by side, every pane framed and joined line by line. title(i) is
// pane i's title line (the manager cuts it to the pane).
func (p *Panes) View(title func(i int) string) string {
	h := p.frameHeight()
	if h < 3 {
		if p.SideBySide() {
			return ""
		}
		return p.Tabs() + "\n"
	}
	widths := p.Widths()
	type col struct {
		f    framer
		body func(int) string
	}
	var cols []col
	for i := range p.bodies {
		if widths[i] == 0 {
			continue
		}
		style := p.styles.Pane
		if i == p.focus && p.SideBySide() {
			style = p.styles.PaneOn
		}
		d := &p.bodies[i]
		t := common.FitLine(p.styles.Title.Render(title(i)), d.Width())
		cols = append(cols, col{newFramer(style, widths[i]), func(r int) string {
			if r == 0 {
				return t
			}
			return d.Line(r - 1)
		}})
	}
	var b strings.Builder
	if !p.SideBySide() {
		b.WriteString(p.Tabs() + "\n")
	}
	for r := range h {
		if r > 0 {
			b.WriteByte('\n')
		}
		for _, c := range cols {
			b.WriteString(c.f.row(r, h, c.body))
		}
	}
	return b.String()
}

// Frames are drawn by hand from lines cut and padded when the content was
// rendered, so that a keystroke's View joins cached strings and does not
// measure or wrap the panes again (lipgloss's Width would).

// framer draws one pane's border and padding around lines of a fixed width.
type framer struct {
	top, bottom, left, right string
	padL, padR               string
}

func newFramer(style lipgloss.Style, outer int) framer {
	b := style.GetBorderStyle()
	bs := lipgloss.NewStyle().Foreground(style.GetBorderTopForeground())
	run := max(outer-2, 0)
	return framer{
		top:    bs.Render(b.TopLeft + strings.Repeat(b.Top, run) + b.TopRight),
		bottom: bs.Render(b.BottomLeft + strings.Repeat(b.Bottom, run) + b.BottomRight),
		left:   bs.Render(b.Left),
		right:  bs.Render(b.Right),
		padL:   strings.Repeat(" ", style.GetPaddingLeft()),
		padR:   strings.Repeat(" ", style.GetPaddingRight()),
	}
}

// row returns line r of a pane h lines tall whose body is body (each line
// already exactly as wide as the inside).
func (f framer) row(r, h int, body func(int) string) string {
	switch r {
	case 0:
		return f.top
	case h - 1:
		return f.bottom
	}
	return f.left + f.padL + body(r-1) + f.padR + f.right
}
