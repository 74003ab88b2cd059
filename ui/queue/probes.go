package queue

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"

	"github.com/memreview/memreview/ui/common"
)

// The probes pane: every recorded run of the proposal and, after a live
// re-run, its result and verdict.

// maxTableRows caps the rows of an output table in the probes pane.
const maxTableRows = 8

func (m *Model) probesContent(w int) string {
	st := m.Styles
	m.probeWide = 0
	var b strings.Builder
	if m.showsCurator() {
		b.WriteString(m.deps.Curator.View(st, w, true) + "\n\n")
	}
	probes := m.probeList()
	if len(probes) == 0 {
		return b.String() + st.Subtle.Render(common.Wrap("No probe runs or checks back this proposal.", w))
	}
	for i, it := range probes {
		r := it.Expect
		if i > 0 {
			b.WriteString("\n")
		}
		head := fmt.Sprintf("%d %s %s · %s · %s", i+1, r.Kind, r.Env, duration(r.DurationMS), it.Run)
		if it.Check > 0 {
			head = fmt.Sprintf("%d check %d of the record · %s %s · expects", i+1, it.Check, r.Kind, r.Env)
		}
		b.WriteString(st.Title.Render(ansi.Truncate(head, w, "…")) + "\n")
		b.WriteString(st.Subtle.Render(common.Indent("$ ", common.Printable(r.Input), w, 2)) + "\n")
		b.WriteString(m.resultText(r, w))
		switch {
		case i < len(m.probes):
			b.WriteString(m.liveText(m.probes[i], w))
		case it.Last != nil: // run live earlier (before a defer, or another session)
			b.WriteString(m.liveText(savedLive(it), w))
		}
	}
	// A narrower pane (z back, a resize) may show more of the widest line.
	m.probeX = min(m.probeX, max(m.probeWide-w, 0))
	return strings.TrimRight(b.String(), "\n")
}

func duration(ms float64) string {
	if ms < 10 {
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.0f ms", ms)
}

// savedLive is an item's latest saved live run as the pane shows a live one.
func savedLive(it review.LiveItem) liveProbe {
	return liveProbe{done: true, now: it.Last.Result, verdict: probe.Compare(it.Expect, it.Last.Result),
		run: it.Last.ID, at: it.Last.At, earlier: true}
}

// liveText is the outcome of a live re-run under its recorded run.
func (m *Model) liveText(lp liveProbe, w int) string {
	if !lp.done {
		return m.Styles.Warn.Render(m.spinner.View()+" re-running…") + "\n"
	}
	s := common.Wrap(m.liveLabel(lp), w) + "\n" // "saved as run_…" wraps, never cut
	if lp.verdict == probe.Changed || lp.verdict == probe.FailsNow {
		s += m.resultText(lp.now, w)
	}
	return s
}

// liveLabel is a done live run's verdict, when it ran, how long it took
// and whether it was saved, on one line.
func (m *Model) liveLabel(lp liveProbe) string {
	st := m.Styles
	when := "now"
	if lp.earlier {
		when = "live " + lp.run + " " + lp.at.UTC().Format("2006-01-02 15:04")
	}
	var label string
	switch lp.verdict {
	case probe.Same:
		label = st.Good.Render("✔ " + when + ": same")
	case probe.Changed:
		label = st.Warn.Render("~ " + when + ": changed")
	case probe.FailsNow:
		label = st.Bad.Render("✘ " + when + ": fails now")
	case probe.EnvChanged:
		label = st.Warn.Render("≈ " + when + ": environment changed")
	default:
		label = st.Warn.Render(when + ": " + string(lp.verdict))
	}
	tail := " · " + duration(lp.now.DurationMS)
	switch {
	case lp.saveErr != "":
		tail += " · not saved"
	case !lp.earlier && lp.run != "":
		tail += " · saved as " + lp.run
	}
	return label + st.Subtle.Render(tail)
}

// resultText renders a probe's output: its error, a table or text.
func (m *Model) resultText(r probe.Result, w int) string {
	st := m.Styles
	if r.Error != "" {
		return st.Bad.Render(common.Indent("error: ", common.Printable(r.Error), w, 7)) + "\n"
	}
	var b strings.Builder
	if len(r.Columns) > 0 {
		b.WriteString(m.table(r.Columns, r.Rows, w))
	} else if r.Text != "" {
		// A text output's lines scroll sideways with the tables.
		wide := false
		lines := strings.Split(strings.TrimRight(common.Printable(r.Text), "\n"), "\n")
		for i, l := range lines {
			if i == maxTableRows {
				fmt.Fprintf(&b, "… %d more lines (enter shows them)\n", len(lines)-i)
				break
			}
			lw := ansi.StringWidth(l)
			m.probeWide = max(m.probeWide, lw)
			x := min(m.probeX, max(lw-w, 0))
			b.WriteString(ansi.Truncate(ansi.Cut(l, x, lw), w, "…") + "\n")
			wide = wide || lw > w
		}
		if wide {
			b.WriteString(st.Subtle.Render("← → scroll sideways") + "\n")
		}
	}
	if r.Truncated {
		b.WriteString(st.Subtle.Render("(output truncated by the probe's limits)") + "\n")
	}
	return b.String()
}

// table lays out at most maxTableRows of rows at their content's width
// (common.LayOutTable) and shows the window of it that ←/→ scrolled to
// (probeX; a narrower table stops at its right edge), then says how many
// rows there are and, when it is wider than the pane, which columns show.
// enter (probeOutput) shows every row and cell in full.
func (m *Model) table(cols []string, rows [][]any, w int) string {
	s, wide := probeTable(m.Styles, cols, rows, w, m.probeX)
	m.probeWide = max(m.probeWide, wide)
	return s
}

// probeTable is table's text with its window from x, and the table's
// whole width.
func probeTable(st *common.Styles, cols []string, rows [][]any, w, x int) (string, int) {
	t := common.LayOutTable(cols, rows[:min(len(rows), maxTableRows)])
	x = min(x, max(t.Width-w, 0))
	lines := t.Window(x, w)
	var foot string
	switch {
	case len(rows) > maxTableRows:
		foot = fmt.Sprintf("… %d rows in all (enter shows them)", len(rows))
	case len(rows) == 1:
		foot = "(1 row)"
	default:
		foot = fmt.Sprintf("(%d rows)", len(rows))
	}
	lines = append(lines, foot)
	if t.Overflows(w) {
		first, last, partly := t.Shown(x, w)
		hint := fmt.Sprintf("← → scroll · columns %d–%d of %d shown", first+1, last+1, len(cols))
		if first == last {
			hint = fmt.Sprintf("← → scroll · column %d of %d shown", first+1, len(cols))
		}
		if partly {
			hint += " (in part)"
		}
		lines = append(lines, st.Subtle.Render(hint))
	}
	return strings.Join(lines, "\n") + "\n", t.Width
}

// sideStep is how far one ←/→ scrolls the probes pane's tables: half the
// pane.
func sideStep(w int) int { return max(w/2, 4) }

// scrollSideways moves the probes pane's tables half a pane left or
// right, within the widest of them.
func (m *Model) scrollSideways(left bool) {
	w := m.panes.Body(paneProbes).Width()
	step := sideStep(w)
	if left {
		step = -step
	}
	m.probeX = min(max(m.probeX+step, 0), max(m.probeWide-w, 0))
	m.renderPane(paneProbes)
}

// probeList is what p runs live for the shown proposal
// (review.LiveItems): its probe runs, then every check of its record that
// no run already repeats, each with its latest saved live run.
func (m *Model) probeList() []review.LiveItem {
	if !m.ready() {
		return nil
	}
	return review.LiveItems(m.cur.P, m.cur.Runs)
}
