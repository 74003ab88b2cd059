package console

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/ui/common"
)

// The result is rendered into lines when it arrives or the width changes
// (renderBody); View shows the lines on screen only.

// headLines is the environment line, the input (one to MaxInputLines
// lines) and the result line.
func (m *Model) headLines() int { return 2 + m.input.Height() }

func (m *Model) bodyHeight() int { return max(m.Height-m.headLines(), 1) }

// inputLines is how many screen lines the input's text takes when wrapped
// at its width, counting a cell for the cursor at the end of each line.
func (m *Model) inputLines() int {
	w := max(m.input.Width(), 1)
	n := 0
	for _, line := range strings.Split(m.input.Value(), "\n") {
		n += lipgloss.Width(line)/w + 1
	}
	return n
}

// fitInput grows or shrinks the input to its text, up to MaxInputLines.
// When the text fits, the input is rebuilt at the same cursor so that its
// view starts at the first line (the textarea keeps the offset it scrolled
// to while it was shorter); when it does not, the textarea is given its
// current text (View) and asked to bring the cursor into sight (Update with
// no message), since it scrolls only within the text of its last View.
func (m *Model) fitInput() {
	n := m.inputLines()
	if m.input.Value() == "" {
		n = m.placeholderLines()
	}
	m.input.SetHeight(min(n, MaxInputLines))
	if n > MaxInputLines {
		_ = m.input.View()
		m.input, _ = m.input.Update(nil)
	} else {
		row, col := m.input.Line(), m.input.LineInfo().StartColumn+m.input.LineInfo().ColumnOffset
		m.input.SetValue(m.input.Value())
		for m.input.Line() > row {
			m.input.CursorUp()
		}
		m.input.SetCursor(col)
	}
	m.scroll(0)
}

// renderBody renders the last result at the current width.
func (m *Model) renderBody() {
	m.body, m.bodyW = nil, m.Width
	if m.last == nil || m.Width <= 0 {
		return
	}
	r := m.last
	w := m.Width
	switch {
	case r.Error != "":
		m.body = strings.Split(m.Styles.Error.Render(ansi.Wrap(common.Printable(r.Error), w, " -")), "\n")
		m.body = append(m.body, m.Styles.Subtle.Render("Nothing in the environment was changed."))
	case len(r.Columns) > 0 && m.full:
		full := strings.TrimRight(common.FullRows(m.Styles, r.Columns, r.Rows, w), "\n")
		m.body = append(strings.Split(full, "\n"), "("+count(len(r.Rows), "row")+" · ctrl+o: the table)")
	case len(r.Columns) > 0:
		foot := "(" + count(len(r.Rows), "row") + ")"
		if wider(r.Columns, r.Rows, w) {
			foot = "(" + count(len(r.Rows), "row") + " · ctrl+o: every cell in full)"
		}
		m.body = append(common.Table(r.Columns, r.Rows, w, 0), foot)
	default:
		text := strings.TrimRight(common.Printable(r.Text), "\n")
		if text == "" {
			m.body = []string{m.Styles.Subtle.Render("(no output)")}
			break
		}
		m.body = strings.Split(ansi.Wrap(text, w, ""), "\n")
	}
	if r.Truncated {
		m.body = append(m.body, m.Styles.Warn.Render("(output truncated at the probe's limits)"))
	}
	if r.Note != "" && r.Error == "" { // an MCP tool called through the allow-list
		m.body = append(m.body, strings.Split(m.Styles.Warn.Render(ansi.Wrap("("+common.Printable(r.Note)+")", w, " ")), "\n")...)
	}
	m.scroll(0)
}

// View draws the environment line, the input, the result line and the
// result lines on screen.
func (m *Model) View() string {
	if m.Width <= 0 || m.Height <= 0 {
		return ""
	}
	st := m.Styles
	lines := []string{m.envLine()}
	for _, l := range strings.Split(m.input.View(), "\n") {
		lines = append(lines, ansi.Truncate(l, m.Width, ""))
	}
	lines = append(lines, m.resultLine())
	switch {
	case m.loadErr != "":
		lines = append(lines, st.Error.Render(ansi.Truncate(m.loadErr, m.Width, "…")))
	case m.loaded && len(m.envs) == 0:
		lines = append(lines, st.Subtle.Render("No environments: add [[env]] entries to memreview.toml."))
	case m.last == nil:
		lines = append(lines, st.Subtle.Render(ansi.Truncate("Type a probe and press enter. Probes are read-only: writes are refused.", m.Width, "…")))
	default:
		end := min(m.off+m.bodyHeight(), len(m.body))
		lines = append(lines, m.body[m.off:end]...)
	}
	return lipgloss.NewStyle().MaxHeight(m.Height).Render(strings.Join(lines, "\n"))
}

// envLine lists the environments with the chosen one marked.
func (m *Model) envLine() string {
	st := m.Styles
	if !m.loaded {
		return st.Subtle.Render("reading environments…")
	}
	parts := []string{st.Label.Render("env ")}
	for i, e := range m.envs {
		parts = append(parts, st.TabLabel(e.Name+" "+string(e.Kind), i == m.env))
	}
	return ansi.Truncate(strings.Join(parts, " "), m.Width, "…")
}

// resultLine says what the last run did and where A attaches.
func (m *Model) resultLine() string {
	st := m.Styles
	left := ""
	switch r := m.last; {
	case m.running && m.pdfWait:
		left = st.Warn.Render("running… preparing the PDF engine (once per machine, about 15 s)")
	case m.running:
		left = st.Warn.Render("running…")
	case r == nil:
	case r.Error != "":
		verdict := "✘ failed"
		if strings.HasPrefix(r.Error, "refused") {
			verdict = "✘ refused"
		}
		left = st.Bad.Render(verdict) + st.Subtle.Render(fmt.Sprintf(" · %s · %s", r.Env, duration(r.DurationMS)))
	default:
		what := ""
		if len(r.Columns) > 0 {
			what = count(len(r.Rows), "row")
		} else {
			what = count(strings.Count(strings.TrimRight(r.Text, "\n"), "\n")+1, "line")
		}
		left = st.Good.Render("✔ "+what) + st.Subtle.Render(fmt.Sprintf(" · %s · %s", r.Env, duration(r.DurationMS)))
		if r.Truncated {
			left += st.Warn.Render(" · truncated")
		}
		if len(m.body) > m.bodyHeight() {
			left += st.Subtle.Render(fmt.Sprintf(" · lines %d–%d of %d", m.off+1, min(m.off+m.bodyHeight(), len(m.body)), len(m.body)))
		}
	}
	right := st.Subtle.Render("attach → none")
	if m.target.ID != "" {
		right = st.Label.Render("attach → ") + st.Title.Render(m.target.Kind+" "+m.target.ID)
		if m.targetWhy != "" {
			right += st.Subtle.Render(" (" + m.targetWhy + ")")
		}
	}
	if m.busy != "" {
		right = st.Warn.Render(m.busy)
	}
	return common.Spread(left, right, m.Width)
}

// count says "1 row", "2 rows".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func duration(ms float64) string {
	if ms < 10 {
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.0f ms", ms)
}

// wider reports whether a table of rows does not fit width w whole, so
// common.Table cuts some cells.
func wider(cols []string, rows [][]any, w int) bool {
	return common.TableWidth(cols, rows) > w
}
