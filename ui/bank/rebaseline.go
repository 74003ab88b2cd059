package bank

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/form"
)

// b on the bank screen: re-baseline a suspect record. The question shows,
// for each check whose last verify did not hold but ran, what it expects
// and what the environment gave; y takes the latter as the new expected
// result, in a new version written through the service as this person's
// edit (with N's note), so the record stops being suspect.

// rebaselineVerb names the write in the footer.
const rebaselineVerb review.Verb = "re-baseline"

// rebaselineable lists the 1-based checks of the shown record that b
// would re-baseline: those whose last verify, of this version, did not
// hold and did not fail.
func (m *Model) rebaselineable() []int {
	if !m.ready() {
		return nil
	}
	r := m.detail.Record
	var out []int
	for _, c := range m.detail.Checks {
		if (c.Version == 0 || c.Version == r.Version) && c.Index >= 0 && c.Index < len(r.Checks) && !review.Holds(c.Verdict) && c.Now.OK() {
			out = append(out, c.Index+1)
		}
	}
	return out
}

// whyNoRebaseline says why b does not apply to the shown record, and what
// does: a check that fails outright has no output to take as a baseline.
func (m *Model) whyNoRebaseline() string {
	r := m.detail.Record
	switch {
	case m.busy != "":
		return "b waits: " + m.busy
	case r.Status != review.Active:
		return fmt.Sprintf("b: %s is %s; there is nothing to re-baseline", r.ID, r.Status)
	case len(r.Checks) == 0:
		return fmt.Sprintf("b: %s has no checks; e adds one", r.ID)
	}
	var failing []string
	verified := false
	for _, c := range m.detail.Checks {
		if (c.Version != 0 && c.Version != r.Version) || c.Index < 0 || c.Index >= len(r.Checks) {
			continue
		}
		verified = true
		if !c.Now.OK() {
			failing = append(failing, fmt.Sprintf("check %d fails now (%s)", c.Index+1, ansi.Truncate(common.PrintableLine(c.Now.Error), 60, "…")))
		}
	}
	switch {
	case len(failing) > 0:
		return "b: " + strings.Join(failing, "; ") + ": a failing probe gives no baseline; e edits the check, d retires the record"
	case !verified:
		return fmt.Sprintf("b takes what the last verify returned, and %s v%d has not been verified: press v first", r.ID, r.Version)
	}
	return fmt.Sprintf("b: every check of %s held at the last verify; there is nothing to re-baseline", r.ID)
}

type confirmRebaseline struct {
	common.Question
	id      string
	version int
	checks  []int
}

func (c *confirmRebaseline) Update(m *Model, msg tea.KeyMsg) (overlay, tea.Cmd) {
	switch common.AnswerKey(m.Keys, msg, m.busy != "") {
	case common.AnswerYes:
		return nil, m.rebaseline(c)
	case common.AnswerNo:
		return nil, nil
	}
	return c, nil
}

// rebaseline writes the new version in a Cmd.
func (m *Model) rebaseline(c *confirmRebaseline) tea.Cmd {
	var note string
	form.TakeNote(&note, &m.note)
	m.busy = "re-baselining " + c.id + "…"
	svc, deps, id, version, checks := m.deps.Service, m.deps, c.id, c.version, c.checks
	return func() tea.Msg {
		dec, err := svc.Rebaseline(context.Background(), id, version, checks, deps.Operator, note)
		if err == nil {
			deps.Logf("bank: re-baselined %s checks %v: %s", id, checks, dec.ID)
		}
		return written{verb: rebaselineVerb, dec: dec, err: err}
	}
}

func (c *confirmRebaseline) View(m *Model, w, h int) string {
	st := m.Styles
	inner := common.OverlayInner(st, w)
	var b strings.Builder
	q := fmt.Sprintf("Re-baseline %s v%d: take what the last verify returned as the expected result of check %s? "+
		"It writes v%d as your edit; u undoes it. y/n", c.id, c.version, joinInts(c.checks), c.version+1)
	b.WriteString(st.Title.Render(common.Wrap(q, inner)) + "\n")
	if m.ready() && m.detail.Record.ID == c.id && m.detail.Record.Version == c.version {
		r := m.detail.Record
		for _, n := range c.checks {
			if n < 1 || n > len(r.Checks) {
				continue
			}
			chk := r.Checks[n-1]
			b.WriteString("\n" + st.Label.Render(common.Indent(fmt.Sprintf("check %d %s: ", n, chk.Env), common.Printable(chk.Input), inner, 4)) + "\n")
			if chk.HasBaseline() {
				b.WriteString(st.Removed.Render("expects") + "\n" + probeLines(chk.Expect, inner))
			} else {
				b.WriteString(st.Removed.Render("expects nothing yet: the check has no baseline") + "\n")
			}
			for _, cr := range m.detail.Checks {
				if cr.Index == n-1 {
					b.WriteString(st.Added.Render("now ("+stamp(cr.At)+")") + "\n" + probeLines(cr.Now, inner))
				}
			}
		}
	}
	return common.OverlayBox(m.Styles, strings.TrimRight(b.String(), "\n"), w, h)
}

// maxResultRows caps the rows of a result the question shows.
const maxResultRows = 6

// probeLines is a probe result as the question shows it: its error, its
// table or its text, at most maxResultRows rows.
func probeLines(r probe.Result, w int) string {
	var lines []string
	switch {
	case r.Error != "":
		lines = []string{"error: " + common.PrintableLine(r.Error)}
	case len(r.Columns) > 0:
		lines = common.Table(r.Columns, r.Rows[:min(len(r.Rows), maxResultRows)], w-2, 0)
		if len(r.Rows) > maxResultRows {
			lines = append(lines, fmt.Sprintf("… %d rows in all", len(r.Rows)))
		}
	case r.Text == "":
		lines = []string{"(no output)"}
	default:
		text := strings.Split(strings.TrimRight(common.Printable(r.Text), "\n"), "\n")
		if len(text) > maxResultRows {
			text = append(text[:maxResultRows], fmt.Sprintf("… %d lines in all", len(text)))
		}
		lines = text
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("  " + ansi.Truncate(l, w-2, "…") + "\n")
	}
	return b.String()
}

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}
