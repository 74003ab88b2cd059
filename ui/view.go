package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/ui/common"
)

const (
	headerHeight = 1
	footerHeight = 2 // key help, then the status line
)

func (m *Model) tooSmall() bool {
	return m.c.Width < MinWidth || m.c.Height < MinHeight
}

// View draws header, the active screen (or the help overlay) and footer.
func (m *Model) View() string {
	if m.c.Width == 0 {
		return ""
	}
	if m.tooSmall() {
		msg := fmt.Sprintf("terminal too small: %dx%d\nmemreview needs at least %dx%d", m.c.Width, m.c.Height, MinWidth, MinHeight)
		return lipgloss.Place(m.c.Width, m.c.Height, lipgloss.Center, lipgloss.Center,
			m.c.Styles.Error.Render(fitLines(msg, m.c.Width)))
	}
	s := m.screen(m.active)
	body := ""
	_, h := m.bodySize()
	switch {
	case m.consent != nil:
		body = m.consentOverlay(h)
	case m.showErr:
		body = m.errorOverlay(h)
	case m.showAll:
		body = m.helpOverlay(s, h)
	default:
		body = s.View()
	}
	return common.StripBidi(m.header(s) + "\n" + fitHeight(body, h) + "\n" + m.footer(s))
}

// fitHeight cuts s to h lines or pads it with empty ones.
func fitHeight(s string, h int) string {
	lines := strings.SplitN(s, "\n", h+1)
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// fitLines cuts every line of s to width w.
func fitLines(s string, w int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	return strings.Join(lines, "\n")
}

func (m *Model) header(active common.Screen) string {
	st := m.c.Styles
	var tabs []string
	for _, d := range Screens {
		n := d.ID
		if n == m.active {
			tabs = append(tabs, st.TabLabel(fmt.Sprintf("%d %s", n, active.Title()), true))
			continue
		}
		title := d.Name
		if s, ok := m.screens[n]; ok {
			title = s.Title()
		}
		tabs = append(tabs, st.TabLabel(fmt.Sprintf("%d %s", n, title), false))
	}
	left := strings.Join(tabs, "")
	right := st.Subtle.Render("bank " + m.deps.BankName)
	if m.deps.IsSample {
		right = st.Notice.Render("sample world") + st.Subtle.Render(" · bank "+m.deps.BankName)
	}
	gap := m.c.Width - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		return ansi.Truncate(left, m.c.Width, "…")
	}
	return left + strings.Repeat(" ", gap) + right
}

// footer is the screen's key hints, then the status line. The hints are
// cut to make room for "? help · q quit" (and "! error" while there is one unread),
// which are never cut: they lead to everything else.
func (m *Model) footer(active common.Screen) string {
	k := m.c.Keys
	fixed := common.Bindings{k.Help, k.Quit}
	if m.lastErr != "" && m.errUnread {
		fixed = append(common.Bindings{k.Errors}, fixed...)
	}
	hm := m.help
	hm.Width = 0
	right := hm.View(fixed)
	sep := m.c.Styles.Footer.Render(" • ")
	left := hm.View(common.Bindings(active.ShortHelp()))
	if m.consent != nil {
		left = hm.View(common.Bindings{k.Yes, k.No})
	}
	room := m.c.Width - lipgloss.Width(right) - lipgloss.Width(sep)
	line := right
	switch {
	case left == "":
	case room >= lipgloss.Width(left):
		line = left + sep + right
	case room > 1:
		line = ansi.Truncate(left, room, "…") + sep + right
	}
	status := ""
	if m.status.Text == "" && m.hygiene != nil {
		status = m.c.Styles.Status.Render(ansi.Truncate(m.hygieneProgress(), m.c.Width, "…"))
	}
	if m.status.Text == "" && m.hygiene == nil && m.index.opening() {
		status = m.c.Styles.Status.Render(ansi.Truncate(m.index.line(), m.c.Width, "…"))
	}
	if m.status.Text == "" && m.hygiene == nil && !m.index.opening() && m.embed.showing() {
		status = m.c.Styles.Status.Render(ansi.Truncate(common.PrintableLine(m.embed.line()), m.c.Width, "…"))
	}
	if m.status.Text != "" {
		style := m.c.Styles.Status
		if m.status.Err {
			style = m.c.Styles.Error
		}
		status = style.Render(ansi.Truncate(common.PrintableLine(m.status.Text), m.c.Width, "…"))
	}
	return ansi.Truncate(line, m.c.Width, "…") + "\n" + status
}

// helpOverlay lists every key of the active screen in columns, as many
// side by side as the width holds and the rest in rows below, then the
// keys of every screen on one line. Nothing is cut: a column that does not
// fit starts a new row.
func (m *Model) helpOverlay(s common.Screen, h int) string {
	var groups [][]key.Binding
	if fh, ok := s.(common.FullHelper); ok {
		groups = fh.FullHelp()
	} else {
		groups = [][]key.Binding{s.ShortHelp()}
	}
	// Every key of the screen, also those that do not apply to what is
	// shown now (d on a proposal with no targets, [ on the first one): the
	// overlay is where a key is looked up.
	all := make([][]key.Binding, len(groups))
	for i, g := range groups {
		for _, b := range g {
			b.SetEnabled(true) // a copy
			all[i] = append(all[i], b)
		}
	}
	groups = all
	st, k := m.c.Styles, m.c.Keys
	inner := max(m.c.Width-st.Overlay.GetHorizontalFrameSize(), 1)
	global := m.help
	global.Width = inner
	text := st.Title.Render("Keys") + "\n\n" + helpRows(m.help, groups, inner) +
		"\n\n" + global.ShortHelpView(slices.Clone(m.keys)) +
		"\n" + global.ShortHelpView([]key.Binding{k.Help, k.Errors, k.Quit, k.Hygiene}) +
		"\n\n" + st.Subtle.Render(common.Wrap("Every decision is committed when the footer says so; q quits at once. Press ? or esc to close.", inner))
	box := st.Overlay.Width(m.c.Width - st.Overlay.GetHorizontalBorderSize()).Render(fitLines(text, inner))
	return lipgloss.NewStyle().MaxHeight(h).Render(box)
}

// helpRows lays groups out as help columns, starting a new row of columns
// whenever the next one would make the row wider than w.
func helpRows(hm help.Model, groups [][]key.Binding, w int) string {
	hm.Width = 0 // rows are cut here, not by the help bubble
	var rows []string
	var row [][]key.Binding
	for _, g := range groups {
		if len(row) > 0 && lipgloss.Width(hm.FullHelpView(append(slices.Clip(row), g))) > w {
			rows = append(rows, hm.FullHelpView(row))
			row = nil
		}
		row = append(row, g)
	}
	if len(row) > 0 {
		rows = append(rows, hm.FullHelpView(row))
	}
	return strings.Join(rows, "\n\n")
}

// errorOverlay shows the last error in full, wrapped (the footer cuts it).
func (m *Model) errorOverlay(h int) string {
	st := m.c.Styles
	inner := max(m.c.Width-st.Overlay.GetHorizontalFrameSize(), 1)
	text := st.Title.Render("Last error") + "\n\n" + st.Error.Render(common.Wrap(common.Printable(m.lastErr), inner)) +
		"\n\n" + st.Subtle.Render(common.Wrap("The log (memreview.log in the bank directory) has the details. Press ! or esc to close.", inner))
	box := st.Overlay.Width(m.c.Width - st.Overlay.GetHorizontalBorderSize()).Render(fitLines(text, inner))
	return lipgloss.NewStyle().MaxHeight(h).Render(box)
}
