package common

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// Pane helpers: the list-and-detail layout of the bank and trajectories
// screens (side by side when the screen is wide enough, else only the
// focused pane), and the scroll keys of a pane's viewport.

// PaneWidths returns the outer widths of a list and a detail pane sharing
// width w (0 = hidden). From width wide on, both show, the list taking
// listPercent of w; below it only the detail shows when detailFocused, else
// only the list.
func PaneWidths(w, wide, listPercent int, detailFocused bool) (list, detail int) {
	if w < wide {
		if detailFocused {
			return 0, w
		}
		return w, 0
	}
	list = w * listPercent / 100
	return list, w - list
}

// ScrollPane scrolls vp by a movement key (up, down, page up and down, top,
// bottom) and reports whether msg was one: the focused pane's keys on the
// review screen and in the bank's and trajectories' detail.
func ScrollPane(k KeyMap, vp *viewport.Model, msg tea.KeyMsg) bool {
	switch {
	case key.Matches(msg, k.Up):
		vp.ScrollUp(1)
	case key.Matches(msg, k.Down):
		vp.ScrollDown(1)
	case key.Matches(msg, k.PageUp):
		vp.PageUp()
	case key.Matches(msg, k.PageDown):
		vp.PageDown()
	case key.Matches(msg, k.Top):
		vp.GotoTop()
	case key.Matches(msg, k.Bottom):
		vp.GotoBottom()
	default:
		return false
	}
	return true
}

// MoveStep is how far a movement key (up, down, page up and down, top,
// bottom) moves a cursor in a list of n rows, page rows on screen, and
// whether msg is one: top and bottom move by n, which a cursor clamped to
// the list stops at its first and last row.
func MoveStep(k KeyMap, msg tea.KeyMsg, page, n int) (int, bool) {
	switch {
	case key.Matches(msg, k.Up):
		return -1, true
	case key.Matches(msg, k.Down):
		return 1, true
	case key.Matches(msg, k.PageUp):
		return -page, true
	case key.Matches(msg, k.PageDown):
		return page, true
	case key.Matches(msg, k.Top):
		return -n, true
	case key.Matches(msg, k.Bottom):
		return n, true
	}
	return 0, false
}
