package bank

import (
	"fmt"
	"strings"
	"time"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
)

// setLinks lists the trajectory steps the detail can open: the record's
// provenance first, then the trajectories that retrieved it.
func (m *Model) setLinks() {
	m.links, m.link = nil, 0
	if m.detail == nil || m.detail.Record == nil {
		return
	}
	pv := m.detail.Record.Provenance
	if pv.Trajectory != "" {
		l := link{traj: pv.Trajectory}
		if pv.Steps != nil {
			l.step = pv.Steps.From
		}
		m.links = append(m.links, l)
	}
	for _, u := range m.detail.Uses {
		m.links = append(m.links, link{traj: u.Trajectory})
	}
}

// renderDetail wraps the detail at the pane's width into its viewport.
func (m *Model) renderDetail() {
	if m.Width == 0 {
		return
	}
	w := m.pane.Width
	switch {
	case m.selected() == "":
		m.pane.SetContent("")
	case m.detailErr != "":
		m.pane.SetContent(m.Styles.Error.Render(common.Wrap(m.detailErr, w)))
	case !m.ready():
		m.pane.SetContent(m.Styles.Subtle.Render("loading…"))
	default:
		m.pane.SetContent(m.detailContent(w))
	}
}

// linkLine renders link i: a marker when selected and the hint to open it.
func (m *Model) linkLine(i int, text string, w int) string {
	st := m.Styles
	if i == m.link {
		return st.Selected.Render(common.Indent("▸ ", text+"  (enter opens)", w, 2))
	}
	return common.Indent("  ", text, w, 2)
}

func (m *Model) detailContent(w int) string {
	st := m.Styles
	d := m.detail
	r := d.Record
	var b strings.Builder
	b.WriteString(st.Text.Render(common.Wrap(common.Printable(r.Lemma), w)) + "\n")
	if r.Suspect {
		b.WriteString(st.Bad.Render(common.Wrap("⚠ suspect: a check failed at the last verify", w)) + "\n")
	}
	b.WriteString("\n")
	for _, f := range common.RecordFields(r) {
		if f.Name == "lemma" || strings.HasPrefix(f.Name, "check ") || f.Name == "from" {
			continue
		}
		b.WriteString(common.Indent(st.Label.Render(f.Name+": "), f.Value, w, 2) + "\n")
	}
	b.WriteString(st.Label.Render("created: ") + stamp(r.Created) + st.Label.Render("  updated: ") + stamp(r.Updated) + "\n")
	if r.VerifiedAgainst != "" {
		b.WriteString(common.Indent(st.Label.Render("verified against: "), r.VerifiedAgainst, w, 2) + "\n")
	}

	b.WriteString("\n" + st.Title.Render("Provenance") + "\n")
	li := 0
	if pv := r.Provenance; pv.Trajectory != "" {
		text := pv.Trajectory
		if pv.Steps != nil {
			text += " " + common.StepRange(*pv.Steps)
		}
		b.WriteString(m.linkLine(li, text, w) + "\n")
		li++
	} else {
		b.WriteString(st.Subtle.Render("  no trajectory") + "\n")
	}

	b.WriteString("\n" + st.Title.Render(fmt.Sprintf("Checks (%d)", len(r.Checks))) + "\n")
	for i, c := range r.Checks {
		b.WriteString(common.Indent(fmt.Sprintf("%d %s: ", i+1, c.Env), common.Printable(c.Input), w, 4) + "\n")
		b.WriteString(m.checkLine(i, w) + "\n")
	}

	b.WriteString("\n" + st.Title.Render(fmt.Sprintf("Retrieved by (%d)", len(d.Uses))) + "\n")
	b.WriteString(m.worthLine(r.ID, w) + "\n")
	for _, u := range d.Uses {
		text := u.Trajectory + " " + common.PrintableLine(u.Task)
		b.WriteString(common.OutcomeMark(st, u.Outcome) + " " + m.linkLine(li, text, w-common.OutcomeWidth-1) + "\n")
		li++
	}

	b.WriteString(m.evalLines(w))
	b.WriteString("\n" + st.Title.Render("History ("+plural(len(d.History), "version")+")") + "\n")
	for i, v := range d.History {
		head := fmt.Sprintf("v%d %s · %s · %s", v.Record.Version, v.Op, v.Actor, stamp(v.At))
		b.WriteString(st.Label.Render(common.Wrap(head, w)) + "\n")
		if v.Reason != "" {
			b.WriteString(common.Indent("  note: ", common.Printable(v.Reason), w, 8) + "\n")
		}
		if i == 0 {
			continue
		}
		for _, l := range common.DiffFields(&d.History[i-1].Record, &v.Record) {
			if l.Op == ' ' {
				continue
			}
			text := common.Indent(string(l.Op)+" ", l.Text, w, 2)
			if l.Op == '-' {
				text = st.Removed.Render(text)
			} else {
				text = st.Added.Render(text)
			}
			b.WriteString(text + "\n")
		}
	}
	if len(d.MergedInto) > 0 {
		b.WriteString(st.Warn.Render(common.Wrap("merged into "+strings.Join(d.MergedInto, ", then into ")+
			": "+d.MergedInto[len(d.MergedInto)-1]+" holds its content now", w)) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// checkLine is the last verify result of check i.
func (m *Model) checkLine(i int, w int) string {
	st := m.Styles
	for _, c := range m.detail.Checks {
		if c.Index != i {
			continue
		}
		s := "  " + verdictText(st, c.Verdict) + st.Subtle.Render(" · "+stamp(c.At))
		switch {
		case c.Now.Error != "":
			s += "\n" + st.Bad.Render(common.Indent("    now: ", common.Printable(c.Now.Error), w, 4))
		case !review.Holds(c.Verdict):
			s += st.Subtle.Render(" · b re-baselines")
		}
		return s
	}
	return st.Subtle.Render("  not verified yet (v verifies)")
}

// verdictText labels a verify verdict with a mark that reads without colour.
func verdictText(st *common.Styles, v probe.Verdict) string {
	switch v {
	case probe.Same:
		return st.Good.Render("✔ same")
	case probe.EnvChanged:
		return st.Warn.Render("≈ environment changed, output same")
	case probe.Changed:
		return st.Warn.Render("~ changed")
	case probe.FailsNow:
		return st.Bad.Render("✘ fails now")
	case probe.NoBaseline:
		return st.Warn.Render("? no baseline to compare with")
	}
	return st.Warn.Render(string(v))
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04")
}
