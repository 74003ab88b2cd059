package bank

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/widget"
)

// Layout and View. The detail is wrapped in renderDetail (on size, record
// or link change) and cached in its viewport; the list renders only the
// rows on screen; View only joins cached parts.

// topLines is the search box and the status line.
const topLines = 2

func (m *Model) wide() bool { return m.Width >= WideWidth }

// listPercent is the list's share of a wide screen: its rows carry the
// lemmas, so it takes the larger part, and the detail wraps in the rest.
const listPercent = 60

// paneWidths returns the outer widths of the list and the detail (0 = hidden).
func (m *Model) paneWidths() (int, int) {
	return common.PaneWidths(m.Width, WideWidth, listPercent, m.focus == paneDetail)
}

func (m *Model) paneHeight() int { return max(m.Height-topLines, 0) }

// layout sizes the list window and the detail viewport.
func (m *Model) layout() {
	fw, fh := m.Styles.Pane.GetFrameSize()
	m.list.height = max(m.paneHeight()-fh-1, 1) // less the title line
	m.list.move(m.list.cursor)
	dw := m.Width
	if m.wide() {
		_, dw = m.paneWidths()
	}
	m.pane.Width = max(dw-fw, 1)
	m.pane.Height = max(m.paneHeight()-fh-1, 1)
}

// View draws the search box, the status line and the panes, or the overlay.
func (m *Model) View() string {
	if m.Width <= 0 || m.Height <= 0 {
		return ""
	}
	st := m.Styles
	box := m.search.View(st, "/ search the bank (everything shown; all terms must match)")
	lines := []string{ansi.Truncate(box, m.Width, "…"), m.statusLine()}
	body := ""
	if m.overlay != nil {
		body = m.overlay.View(m, m.Width, m.paneHeight())
	} else {
		body = m.panesView()
	}
	out := strings.Join(lines, "\n") + "\n" + body
	return lipgloss.NewStyle().MaxHeight(m.Height).Render(out)
}

// statusLine shows the hit count, the facet filters and what is in flight.
func (m *Model) statusLine() string {
	st := m.Styles
	left := st.Subtle.Render("…")
	if m.searched && m.searchErr != "" {
		left = st.Warn.Render("not searched: the query cannot be read (below)")
	} else if m.searched {
		left = st.Title.Render(m.count())
		if m.ranked > 0 {
			left += st.Subtle.Render(" (best of the first " + thousands(int(m.ranked)) + " ranked)")
		}
		if m.unsearched > 0 {
			left += st.Subtle.Render(" (index catching up: " + plural(m.unsearched, "changed item") + " not searched yet)")
		}
		if m.took != "" {
			left += st.Subtle.Render(" in " + m.took)
		}
	}
	if f := filterText(m.filters); f != "" {
		left += st.Label.Render(" · ") + st.Selected.Render(f)
	}
	if n := len(m.marks); n > 0 {
		left += st.Warn.Render(fmt.Sprintf(" · %d marked for merge", n))
	}
	right := ""
	if m.busy != "" {
		right = st.Warn.Render(m.busy)
	}
	return common.Spread(left, right, m.Width)
}

// filterText describes the facet filters: "category=fact,warning env=shop".
func filterText(f map[string][]string) string {
	var parts []string
	for _, field := range facetFields {
		if vs := f[field]; len(vs) > 0 {
			s := append([]string(nil), vs...)
			sort.Strings(s)
			parts = append(parts, field+"="+strings.Join(s, ","))
		}
	}
	return strings.Join(parts, " ")
}

// count is the hit count, "≈ 12,200 records" when the index estimated it.
func (m *Model) count() string {
	n := m.list.total
	if m.rankedOf > 0 {
		n = m.rankedOf
	}
	if m.totalEstimated {
		return "≈ " + plural(n, "record")
	}
	return plural(n, "record")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return thousands(n) + " " + what + "s"
}

// thousands writes n with commas (969,712): the counts of a large bank
// read at a glance.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// panesView frames the list and the detail.
func (m *Model) panesView() string {
	lw, dw := m.paneWidths()
	h := m.paneHeight()
	var cols []string
	frame := func(w int, on bool, title, inner string) string {
		style := m.Styles.Pane
		if on && m.wide() {
			style = m.Styles.PaneOn
		}
		inW := max(w-style.GetHorizontalFrameSize(), 1)
		t := m.Styles.Title.Render(ansi.Truncate(title, inW, "…"))
		return style.Width(max(w-style.GetHorizontalBorderSize(), 1)).
			Height(max(h-style.GetVerticalBorderSize(), 0)).MaxHeight(h).
			Render(t + "\n" + inner)
	}
	if lw > 0 {
		inW := max(lw-m.Styles.Pane.GetHorizontalFrameSize(), 1)
		title := "Records"
		if m.list.total > m.list.height {
			title += " " + thousands(m.list.top+1) + "–" + thousands(min(m.list.top+m.list.height, m.list.total)) + " of " + strings.TrimSuffix(strings.TrimSuffix(m.count(), " records"), " record")
		}
		cols = append(cols, frame(lw, m.focus == paneList, title, m.listView(inW)))
	}
	if dw > 0 {
		title := "Detail"
		if m.ready() {
			title += " " + m.detail.Record.ID + fmt.Sprintf(" v%d", m.detail.Record.Version)
		}
		if m.pane.TotalLineCount() > m.pane.Height {
			title += widget.ScrollLabel(m.pane.ScrollPercent())
		}
		cols = append(cols, frame(dw, m.focus == paneDetail, title, m.pane.View()))
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, cols...)
}
