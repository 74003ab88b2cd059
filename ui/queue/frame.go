package queue

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
)

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
