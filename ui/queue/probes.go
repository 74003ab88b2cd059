package queue

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/probe"

	"github.com/memreview/memreview/ui/common"
)

// The probes pane: every recorded run of the proposal and, after a live
// re-run, its result and verdict.

// maxTableRows caps the rows of an output table in the probes pane.
const maxTableRows = 8

func (m *Model) probesContent(w int) string {
	st := m.Styles
	var b strings.Builder
	if m.showsCurator() {
		b.WriteString(m.deps.Curator.View(st, w, true) + "\n\n")
	}
	probes := m.probeList()
	if len(probes) == 0 {
		return b.String() + st.Subtle.Render(common.Wrap("No probe runs or checks back this proposal.", w))
	}
	for i, pr := range probes {
		r := pr.rec
		if i > 0 {
			b.WriteString("\n")
		}
		head := fmt.Sprintf("%d %s %s · %s · %s", i+1, r.Kind, r.Env, duration(r.DurationMS), pr.name)
		if pr.check > 0 {
			head = fmt.Sprintf("%d check %d of the record · %s %s · expects", i+1, pr.check, r.Kind, r.Env)
		}
		b.WriteString(st.Title.Render(ansi.Truncate(head, w, "…")) + "\n")
		b.WriteString(st.Subtle.Render(common.Indent("$ ", common.Printable(r.Input), w, 2)) + "\n")
		b.WriteString(m.resultText(r, w))
		if i < len(m.probes) {
			b.WriteString(m.liveText(r, m.probes[i], w))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func duration(ms float64) string {
	if ms < 10 {
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.0f ms", ms)
}

// liveText is the outcome of a live re-run under its recorded run.
func (m *Model) liveText(rec probe.Result, lp liveProbe, w int) string {
	st := m.Styles
	if !lp.done {
		return st.Warn.Render(m.spinner.View()+" re-running…") + "\n"
	}
	var label string
	switch lp.verdict {
	case probe.Same:
		label = st.Good.Render("✔ now: same")
	case probe.Changed:
		label = st.Warn.Render("~ now: changed")
	case probe.FailsNow:
		label = st.Bad.Render("✘ now: fails now")
	case probe.EnvChanged:
		label = st.Warn.Render("≈ now: environment changed")
	default:
		label = st.Warn.Render("now: " + string(lp.verdict))
	}
	s := label + st.Subtle.Render(" · "+duration(lp.now.DurationMS)) + "\n"
	if lp.verdict == probe.Changed || lp.verdict == probe.FailsNow {
		s += m.resultText(lp.now, w)
	}
	return s
}

// resultText renders a probe's output: its error, a table or text.
func (m *Model) resultText(r probe.Result, w int) string {
	st := m.Styles
	if r.Error != "" {
		return st.Bad.Render(common.Indent("error: ", common.Printable(r.Error), w, 7)) + "\n"
	}
	var b strings.Builder
	if len(r.Columns) > 0 {
		b.WriteString(table(r.Columns, r.Rows, w))
	} else if r.Text != "" {
		lines := strings.Split(strings.TrimRight(common.Printable(r.Text), "\n"), "\n")
		for i, l := range lines {
			if i == maxTableRows {
				fmt.Fprintf(&b, "… %d more lines\n", len(lines)-i)
				break
			}
			b.WriteString(ansi.Truncate(l, w, "…") + "\n")
		}
	}
	if r.Truncated {
		b.WriteString(st.Subtle.Render("(output truncated by the probe's limits)") + "\n")
	}
	return b.String()
}

// table lays out at most maxTableRows of rows, then says how many there are.
func table(cols []string, rows [][]any, w int) string {
	// Columns take their content's width; only a table wider than the pane
	// has its widest columns cut (the console shows any cell in full).
	lines := common.Table(cols, rows[:min(len(rows), maxTableRows)], w, 0)
	switch {
	case len(rows) > maxTableRows:
		lines = append(lines, fmt.Sprintf("… %d rows in all", len(rows)))
	case len(rows) == 1:
		lines = append(lines, "(1 row)")
	default:
		lines = append(lines, fmt.Sprintf("(%d rows)", len(rows)))
	}
	return strings.Join(lines, "\n") + "\n"
}

// probeItem is one thing p re-runs: a recorded probe run of the proposal,
// or a check of its record (check > 0, 1-based) with its expected result
// as the recorded one.
type probeItem struct {
	rec   probe.Result
	name  string // the run's id
	check int
}

// probeList is every probe run of the shown proposal, then every check of
// its record that no run already repeats: what p runs live.
func (m *Model) probeList() []probeItem {
	if !m.ready() {
		return nil
	}
	var items []probeItem
	seen := map[string]bool{}
	for _, run := range m.cur.Runs {
		items = append(items, probeItem{rec: run.Result, name: run.ID})
		seen[run.Result.Env+"\x00"+run.Result.Input] = true
	}
	if r := m.cur.P.Record; r != nil {
		for i, c := range r.Checks {
			if seen[c.Env+"\x00"+c.Input] {
				continue
			}
			rec := c.Expect
			rec.Env, rec.Input = c.Env, c.Input
			if rec.Kind == "" {
				rec.Kind = "sql"
			}
			items = append(items, probeItem{rec: rec, check: i + 1})
		}
	}
	return items
}
