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
	st := m.Styles
	if !lp.done {
		return st.Warn.Render(m.spinner.View()+" re-running…") + "\n"
	}
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
	s := label + st.Subtle.Render(tail) + "\n"
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

// probeList is what p runs live for the shown proposal
// (review.LiveItems): its probe runs, then every check of its record that
// no run already repeats, each with its latest saved live run.
func (m *Model) probeList() []review.LiveItem {
	if !m.ready() {
		return nil
	}
	return review.LiveItems(m.cur.P, m.cur.Runs)
}
