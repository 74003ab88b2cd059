package bank

import (
	"fmt"
	"strconv"
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
		m.pane.SetContent(m.Styles.Error.Render(wrapText(m.detailErr, w)))
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
		return st.Selected.Render(indent("▸ ", text+"  (enter opens)", w, 2))
	}
	return indent("  ", text, w, 2)
}

func (m *Model) detailContent(w int) string {
	st := m.Styles
	d := m.detail
	r := d.Record
	var b strings.Builder
	b.WriteString(st.Text.Render(wrapText(r.Lemma, w)) + "\n")
	if r.Suspect {
		b.WriteString(st.Bad.Render(wrapText("⚠ suspect: a check failed at the last verify", w)) + "\n")
	}
	b.WriteString("\n")
	for _, f := range recordFields(r) {
		if f.name == "lemma" || strings.HasPrefix(f.name, "check ") || f.name == "from" {
			continue
		}
		b.WriteString(indent(st.Label.Render(f.name+": "), f.value, w, 2) + "\n")
	}
	b.WriteString(st.Label.Render("created: ") + stamp(r.Created) + st.Label.Render("  updated: ") + stamp(r.Updated) + "\n")
	if r.VerifiedAgainst != "" {
		b.WriteString(indent(st.Label.Render("verified against: "), r.VerifiedAgainst, w, 2) + "\n")
	}

	b.WriteString("\n" + st.Title.Render("Provenance") + "\n")
	li := 0
	if pv := r.Provenance; pv.Trajectory != "" {
		text := pv.Trajectory
		if pv.Steps != nil {
			text += " " + stepRange(*pv.Steps)
		}
		b.WriteString(m.linkLine(li, text, w) + "\n")
		li++
	} else {
		b.WriteString(st.Subtle.Render("  no trajectory") + "\n")
	}

	b.WriteString("\n" + st.Title.Render(fmt.Sprintf("Checks (%d)", len(r.Checks))) + "\n")
	for i, c := range r.Checks {
		b.WriteString(indent(fmt.Sprintf("%d %s: ", i+1, c.Env), c.Input, w, 4) + "\n")
		b.WriteString(m.checkLine(i, w) + "\n")
	}

	b.WriteString("\n" + st.Title.Render(fmt.Sprintf("Retrieved by (%d)", len(d.Uses))) + "\n")
	for _, u := range d.Uses {
		mark := st.Bad.Render("✘")
		if u.Outcome.Passed {
			mark = st.Good.Render("✔")
		}
		text := fmt.Sprintf("%s %.2f %s", u.Trajectory, u.Outcome.Reward, u.Task)
		b.WriteString(mark + " " + m.linkLine(li, text, w-2) + "\n")
		li++
	}

	b.WriteString("\n" + st.Title.Render("History ("+plural(len(d.History), "version")+")") + "\n")
	for i, v := range d.History {
		head := fmt.Sprintf("v%d %s · %s · %s", v.Record.Version, v.Op, v.Actor, stamp(v.At))
		b.WriteString(st.Label.Render(wrapText(head, w)) + "\n")
		if v.Reason != "" {
			b.WriteString(indent("  note: ", v.Reason, w, 8) + "\n")
		}
		if i == 0 {
			continue
		}
		for _, l := range diffFields(&d.History[i-1].Record, &v.Record) {
			if l.op == ' ' {
				continue
			}
			text := indent(string(l.op)+" ", l.text, w, 2)
			if l.op == '-' {
				text = st.Removed.Render(text)
			} else {
				text = st.Added.Render(text)
			}
			b.WriteString(text + "\n")
		}
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
		if c.Now.Error != "" {
			s += "\n" + st.Bad.Render(indent("    now: ", c.Now.Error, w, 4))
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
	}
	return st.Warn.Render(string(v))
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

// field is one line of a record as the detail shows it.
type field struct{ name, value string }

// recordFields lists every field of r in a fixed order; empty optional
// fields are left out.
func recordFields(r *review.Record) []field {
	if r == nil {
		return nil
	}
	fs := []field{
		{"lemma", r.Lemma},
		{"category", string(r.Category)},
		{"env", r.Scope.Env},
		{"tags", strings.Join(r.Scope.Tags, ", ")},
		{"task family", r.Scope.TaskFamily},
		{"trigger", r.Trigger},
	}
	for i, s := range r.Steps {
		fs = append(fs, field{fmt.Sprintf("step %d", i+1), s})
	}
	fs = append(fs,
		field{"confidence", strconv.FormatFloat(r.Confidence, 'f', 2, 64)},
		field{"priority", intOrEmpty(r.Priority)},
		field{"status", string(r.Status)},
	)
	pv := r.Provenance
	if pv.Trajectory != "" {
		v := pv.Trajectory
		if pv.Steps != nil {
			v += " " + stepRange(*pv.Steps)
		}
		fs = append(fs, field{"from", v})
	}
	fs = append(fs,
		field{"probe runs", strings.Join(pv.ProbeRuns, ", ")},
		field{"merged from", strings.Join(pv.MergedFrom, ", ")},
		field{"merged into", pv.MergedInto},
	)
	for i, c := range r.Checks {
		fs = append(fs, field{fmt.Sprintf("check %d", i+1), c.Env + ": " + c.Input})
	}
	out := fs[:0]
	for _, f := range fs {
		if f.value != "" {
			out = append(out, f)
		}
	}
	return out
}

func intOrEmpty(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func stepRange(r review.StepRange) string {
	if r.From == r.To {
		return fmt.Sprintf("step %d", r.From)
	}
	return fmt.Sprintf("steps %d–%d", r.From, r.To)
}

// diffLine is one line of a field diff: op is ' ', '-' or '+'.
type diffLine struct {
	op   byte
	text string
}

// diffFields is a line diff of two versions' fields: unchanged fields once,
// changed ones as "- old" then "+ new", then fields only the new one has.
func diffFields(old, new *review.Record) []diffLine {
	a, b := recordFields(old), recordFields(new)
	bv := map[string]string{}
	for _, f := range b {
		bv[f.name] = f.value
	}
	seen := map[string]bool{}
	var out []diffLine
	for _, f := range a {
		seen[f.name] = true
		nv, ok := bv[f.name]
		switch {
		case !ok:
			out = append(out, diffLine{'-', f.name + ": " + f.value})
		case nv == f.value:
			out = append(out, diffLine{' ', f.name + ": " + f.value})
		default:
			out = append(out, diffLine{'-', f.name + ": " + f.value}, diffLine{'+', f.name + ": " + nv})
		}
	}
	for _, f := range b {
		if !seen[f.name] {
			out = append(out, diffLine{'+', f.name + ": " + f.value})
		}
	}
	return out
}
