package eval

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
)

// Views are drawn from what was loaded; nothing here reads the bank.

// runsHeight is the rows the runs list shows.
func (m *Model) runsHeight() int {
	return min(max(len(m.runs), 1), max(2, m.Height/5))
}

// tasksHeight is the rows the task runs list shows (less its header).
func (m *Model) tasksHeight() int { return max(m.Height-1, 1) }

// View draws the runs and the selected run's report, or its task runs.
func (m *Model) View() string {
	if m.Width <= 0 || m.Height <= 0 {
		return ""
	}
	var lines []string
	switch {
	case m.deps.Service == nil:
		lines = []string{m.Styles.Subtle.Render("no bank is open")}
	case !m.loaded:
		lines = []string{m.Styles.Subtle.Render("reading the eval runs…")}
	case m.loadErr != "":
		lines = strings.Split(m.Styles.Error.Render(common.Wrap(m.loadErr, m.Width)), "\n")
	case len(m.runs) == 0:
		lines = strings.Split(m.Styles.Subtle.Render(common.Wrap("No eval runs yet. Start one with: memreview eval TASKS (the sample world's task set is tasks/shop-drift.jsonl in its bank folder); it shows here, live, as it runs.", m.Width)), "\n")
	case m.view == viewTasks:
		lines = m.tasksView()
	default:
		lines = m.runsView()
	}
	return fit(lines, m.Width, m.Height)
}

// fit cuts lines to w×h.
func fit(lines []string, w, h int) string {
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	return strings.Join(lines, "\n")
}

// runsView is the runs list and the selected run's report.
func (m *Model) runsView() []string {
	st := m.Styles
	w := m.Width
	var out []string
	for i := m.top; i < min(m.top+m.runsHeight(), len(m.runs)); i++ {
		line := m.runLine(&m.runs[i], w-2)
		if i == m.cursor {
			out = append(out, st.Selected.Render("▸ "+line))
		} else {
			out = append(out, "  "+line)
		}
	}
	out = append(out, "")
	switch {
	case m.repErr != "":
		return append(out, strings.Split(st.Error.Render(common.Wrap(m.repErr, w)), "\n")...)
	case m.rep == nil:
		return append(out, st.Subtle.Render("reading the run…"))
	}
	rep := m.rep
	out = append(out, st.Title.Render(Header(rep)))
	if rep.Running {
		out = append(out, ProgressLine(rep.Done, rep.Total, ETA(rep, time.Now()), w))
	}
	out = append(out, TableLines(rep, w, w >= 120)...)
	room := m.Height - len(out)
	chart := ChartLines(rep, w)
	if room >= len(chart)+2 {
		out = append(out, "", st.Label.Render("pass rate over the task sequence · █ all passed ▁ none"))
	} else if room > len(chart) {
		out = append(out, "")
	}
	out = append(out, chart...)
	for _, l := range FaultLines(rep, w) {
		out = append(out, st.Warn.Render(l))
	}
	if l := RecordsLine(rep, w); l != "" {
		out = append(out, l)
	}
	for _, d := range rep.Decisions {
		out = append(out, ansi.Truncate(d.Decision+": "+d.String(), w, "…"))
	}
	if m.Height-len(out) >= 1 {
		out = append(out, st.Subtle.Render("enter: the task runs, and from them a transcript"))
	}
	return out
}

// runLine is one run of the list.
func (m *Model) runLine(r *app.EvalRunInfo, w int) string {
	if r.Err != nil {
		return r.ID + "  unreadable: " + common.PrintableLine(r.Err.Error())
	}
	head := fmt.Sprintf("%s  %s  %s  ", r.ID, r.Started.UTC().Format("01-02 15:04"), common.PrintableLine(r.Model))
	switch {
	case r.Running:
		eta := r.Left // as listed; the loaded report is newer
		if m.rep != nil && m.repFor == r.ID {
			eta = ETA(m.rep, time.Now())
		}
		return head + ProgressLine(r.Done, r.Total, eta, max(w-ansi.StringWidth(head), 20))
	case r.Done < r.Total:
		return head + fmt.Sprintf("%d/%d stopped · %s", r.Done, r.Total, strings.Join(r.Conditions, ","))
	}
	return head + fmt.Sprintf("%d/%d ✔ · %s", r.Done, r.Total, strings.Join(r.Conditions, ","))
}

// tasksView is the selected run's task runs.
func (m *Model) tasksView() []string {
	st := m.Styles
	if m.rep == nil {
		return []string{st.Subtle.Render("reading the run…")}
	}
	out := []string{st.Label.Render(fmt.Sprintf("  %4s %-10s %-22s %3s %-12s %5s  %s", "#", "task", "condition", "run", "status", "calls", "answer"))}
	for i := m.ttop; i < min(m.ttop+m.tasksHeight(), len(m.tasks)); i++ {
		tr := &m.rep.Runs[m.tasks[i]]
		mark := "  "
		if i == m.tcursor {
			mark = "▸ "
		}
		line := mark + fmt.Sprintf("%4d %-10s %-22s %3d %-12s %5d  %s", tr.Index, ansi.Truncate(common.PrintableLine(tr.Task), 10, "…"),
			ansi.Truncate(common.PrintableLine(tr.Condition), 22, "…"), tr.Rep, statusText(tr), tr.ToolCalls, common.PrintableLine(tr.Answer))
		switch {
		case i == m.tcursor:
			out = append(out, st.Selected.Render(line))
		case tr.Status == app.EvalPassed:
			out = append(out, st.Good.Render(line))
		case tr.Status == app.EvalFailed || tr.Status == app.EvalError:
			out = append(out, st.Bad.Render(line))
		default:
			out = append(out, st.Warn.Render(line))
		}
	}
	if len(m.tasks) == 0 {
		out = append(out, st.Subtle.Render("no task run under this condition yet"))
	}
	return out
}

// statusText marks a task run's status so that it reads without colour.
func statusText(tr *app.EvalTaskRun) string {
	switch tr.Status {
	case app.EvalPassed:
		return "✔ passed"
	case app.EvalFailed:
		return "✘ failed"
	case app.EvalUngradable:
		return "? ungradable"
	case app.EvalError:
		return "! error"
	}
	return string(tr.Status)
}

// ETA is a running run's time left at the pace of its last task runs
// (app.EvalReport.Left); 0 while unknown.
func ETA(rep *app.EvalReport, _ time.Time) time.Duration { return rep.Left() }
