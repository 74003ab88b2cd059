package trajs

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
)

// The detail is wrapped in renderDetail (on size, selection, step or
// record change) and cached in its viewport; the list draws visible rows.

// topLines is the search box.
const topLines = 1

// maxResultLines caps a tool result's lines in the detail (x shows the
// selected step whole).
const maxResultLines = 8

func (m *Model) wide() bool { return m.Width >= WideWidth }

// paneWidths returns the outer widths of the list and the detail (0 = hidden).
func (m *Model) paneWidths() (int, int) {
	return common.PaneWidths(m.Width, WideWidth, 40, m.focus == paneDetail)
}

func (m *Model) innerHeight() int {
	_, fh := m.Styles.Pane.GetFrameSize()
	return max(m.Height-topLines-fh-1, 1) // less the title line
}

func (m *Model) listHeight() int { return m.innerHeight() }

func (m *Model) layout() {
	fw, _ := m.Styles.Pane.GetFrameSize()
	_, dw := m.paneWidths()
	if dw == 0 {
		dw = m.Width
	}
	w := max(dw-fw, 1)
	if w != m.pane.Width {
		m.pane.Width = w
		m.renderDetail()
	}
	m.pane.Height = m.innerHeight()
}

// View draws the search box and the panes.
func (m *Model) View() string {
	if m.Width <= 0 || m.Height <= 0 {
		return ""
	}
	st := m.Styles
	box := m.search.View(st, "/ search · f env · o outcome · ● curated ◌ proposals pending"+m.filterText())
	lw, dw := m.paneWidths()
	h := m.Height - topLines
	frame := func(w int, on bool, title, inner string) string {
		style := st.Pane
		if on && m.wide() {
			style = st.PaneOn
		}
		inW := max(w-style.GetHorizontalFrameSize(), 1)
		return style.Width(max(w-style.GetHorizontalBorderSize(), 1)).
			Height(max(h-style.GetVerticalBorderSize(), 0)).MaxHeight(h).
			Render(st.Title.Render(ansi.Truncate(title, inW, "…")) + "\n" + inner)
	}
	var cols []string
	if lw > 0 {
		cols = append(cols, frame(lw, m.focus == paneList, m.Title(), m.listView(lw-st.Pane.GetHorizontalFrameSize())))
	}
	if dw > 0 {
		title := "Detail"
		if t := m.selected(); t != nil {
			title += " " + t.ID
			if m.step > 0 {
				title += fmt.Sprintf(" · step %d", m.step)
			}
		}
		title += m.curatorTitle()
		cols = append(cols, frame(dw, m.focus == paneDetail, title, m.pane.View()))
	}
	out := ansi.Truncate(box, m.Width, "…") + "\n" + lipgloss.JoinHorizontal(lipgloss.Top, cols...)
	return lipgloss.NewStyle().MaxHeight(m.Height).Render(out)
}

// outcomeMark is the run's outcome as the list shows it (common.OutcomeMark).
func (m *Model) outcomeMark(o review.Outcome) string { return common.OutcomeMark(m.Styles, o) }

// listView draws the rows on screen.
func (m *Model) listView(w int) string {
	st := m.Styles
	switch {
	case m.loadErr != "":
		return st.Error.Render(ansi.Wrap(m.loadErr, w, " "))
	case !m.loaded:
		return st.Subtle.Render("loading…")
	case m.searchErr != "":
		return st.Warn.Render(common.Wrap("not searched: the query cannot be read", w)) + "\n" +
			st.Error.Render(common.Wrap(m.searchErr, w))
	case len(m.shown) == 0:
		return st.Subtle.Render(ansi.Wrap("No trajectory matches the filters.", w, " "))
	}
	var rows []string
	for i := m.top; i < min(m.top+m.listHeight(), len(m.shown)); i++ {
		t := &m.all[m.shown[i]]
		lead := "  "
		if i == m.cursor {
			lead = st.Selected.Render("▸ ")
		}
		head := lead + m.outcomeMark(t.Outcome) + " " + m.curationMark(t.ID) + " "
		tail := " " + st.Subtle.Render(t.Env+" "+common.ShortID(t.ID, 18))
		task := common.FitLine(common.PrintableLine(t.Task), max(w-ansi.StringWidth(head)-ansi.StringWidth(tail), 1))
		rows = append(rows, ansi.Truncate(head+task+tail, w, "…"))
	}
	return strings.Join(rows, "\n")
}

// renderDetail wraps the selected trajectory at the pane's width.
func (m *Model) renderDetail() {
	t := m.selected()
	if t == nil || m.pane.Width <= 0 {
		m.pane.SetContent("")
		if m.loaded && len(m.shown) == 0 && m.pane.Width > 0 { // stacked, the list saying so is hidden
			say := "No trajectory matches the search and filters."
			if m.searchErr != "" {
				say = "Nothing searched: the query cannot be read."
				if !m.wide() { // the list, which names the error, is hidden
					say += " " + m.searchErr
				}
			}
			m.pane.SetContent(m.Styles.Subtle.Render(ansi.Wrap(say, m.pane.Width, " ")))
		}
		m.paneFor = ""
		return
	}
	m.paneFor = t.ID
	m.pane.SetContent(m.detailContent(t, m.pane.Width))
}

func (m *Model) detailContent(t *review.Trajectory, w int) string {
	st := m.Styles
	var b strings.Builder
	lines := 0
	put := func(s string) {
		b.WriteString(s + "\n")
		lines += strings.Count(s, "\n") + 1
	}
	if m.showsCurator() {
		put(m.deps.Curator.View(st, w, false))
		put("")
	}
	put(common.OutcomeLine(st, t.Outcome) + st.Subtle.Render(" · "+t.Env+" · "+fmt.Sprintf("%d steps", len(t.Steps))))
	put(common.Indent(st.Label.Render("task: "), common.Printable(t.Task), w, 6))
	put(st.Subtle.Render(common.Indent("id: ", t.ID, w, 4)))
	if t.Outcome.Notes != "" {
		put(common.Indent(st.Label.Render("notes: "), t.Outcome.Notes, w, 7))
	}
	if len(t.Retrieved) > 0 {
		put(common.Indent(st.Label.Render("retrieved: "), strings.Join(t.Retrieved, ", "), w, 11))
	}
	if p := t.Distilled; p != nil {
		put("")
		put(st.Title.Render("Distilled"))
		for _, o := range p.Observations {
			put(common.Indent(fmt.Sprintf("%-6s", stepNums(o.Steps)), o.Text, w, 6))
		}
		for _, l := range []struct {
			name  string
			items []string
		}{{"procedures", p.Procedures}, {"assumptions", p.Assumptions}} {
			if len(l.items) > 0 {
				put(st.Label.Render(l.name + ":"))
				for _, it := range l.items {
					put(common.Indent("  • ", it, w, 4))
				}
			}
		}
		if p.Answer != "" {
			put(common.Indent(st.Label.Render("answer: "), p.Answer, w, 8))
		}
	}
	put("")
	put(st.Title.Render(fmt.Sprintf("Steps (%d)", len(t.Steps))) + st.Subtle.Render("  ]/[ select a step"))
	m.stepAt, m.cut = map[int]int{}, map[int]bool{}
	answered := map[string]bool{} // tool calls whose result a tool step shows
	for _, s := range t.Steps {
		if s.Role == "tool" && s.ToolCallID != "" {
			answered[s.ToolCallID] = true
		}
	}
	for i, s := range t.Steps {
		n := i + 1
		m.stepAt[n] = lines
		text, cut := stepText(n, s, w-1, answered, n == m.step && m.whole)
		m.cut[n] = cut
		recs := m.stepRecords(t, n)
		if n == m.step {
			for _, r := range recs {
				lemma, ok := m.lemmas[r.ID]
				if !ok {
					lemma = "…" // loading (loadLemmas)
				}
				text += "\n" + common.Indent("    ↳ ", r.ID+" "+common.PrintableLine(lemma), w-1, 6)
			}
		} else if len(recs) > 0 {
			ids := make([]string, len(recs))
			for j, r := range recs {
				ids[j] = r.ID
			}
			text += "\n" + st.Subtle.Render(ansi.Truncate("    ↳ "+strings.Join(ids, ", "), w-1, "…"))
		}
		put(m.Styles.MarkLines(text, n == m.step))
	}
	return strings.TrimRight(b.String(), "\n")
}

// stepText renders one raw step: number, role, content, tool calls and
// their results (unless a tool step of their own shows them). Its content
// and each result keep their first maxResultLines lines unless whole;
// cut says whether any lost lines.
func stepText(n int, s review.Step, w int, answered map[string]bool, whole bool) (text string, cut bool) {
	clip := func(s string) string {
		ls := strings.Split(s, "\n")
		if whole || len(ls) <= maxResultLines {
			return s
		}
		cut = true
		return strings.Join(ls[:maxResultLines], "\n") + fmt.Sprintf("\n        … %d more lines (x on the selected step shows them)", len(ls)-maxResultLines)
	}
	role := s.Role
	if s.Name != "" {
		role += " " + s.Name
	}
	var out []string
	lead := fmt.Sprintf("%3d %s: ", n, role)
	if c := strings.TrimSpace(s.Content); c != "" {
		out = append(out, clip(common.Indent(lead, common.Printable(c), w, 4)))
		lead = "    "
	}
	for _, tc := range s.ToolCalls {
		out = append(out, common.Indent(lead+"→ ", common.Printable(tc.Name+" "+common.ReadableJSON(tc.Arguments)), w, 6))
		lead = "    "
		if tc.Result != "" && !answered[tc.ID] {
			out = append(out, clip(common.Indent("      ⇐ ", common.Printable(tc.Result), w, 8)))
		}
	}
	if len(out) == 0 {
		out = append(out, strings.TrimRight(lead, " "))
	}
	return strings.Join(out, "\n"), cut
}

func stepNums(r review.StepRange) string {
	if r.From == r.To {
		return itoa(r.From)
	}
	return fmt.Sprintf("%d–%d", r.From, r.To)
}

// curationMark says what became of a trajectory: "●" records came from it
// (curated), "◌" proposals from it wait in the queue, " " neither.
func (m *Model) curationMark(id string) string {
	st := m.Styles
	switch {
	case m.openProps[id] > 0:
		return st.Warn.Render("◌")
	case m.byTraj[id].Len() > 0:
		return st.Good.Render("●")
	}
	return " "
}
