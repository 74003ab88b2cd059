package queue

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/memreview/memreview/review"

	"github.com/memreview/memreview/ui/common"
)

// The three panes' content, built at a given width whenever the proposal,
// the width or the pane's state changes.

// maxStepLines caps one raw step's lines; the rest is summarised.
const maxStepLines = 12

// cited returns the step ranges the proposal rests on.
func (c *proposalContext) cited() []review.StepRange {
	rs := append([]review.StepRange(nil), c.P.Evidence.Steps...)
	if r := c.P.Record; r != nil && r.Provenance.Steps != nil {
		rs = append(rs, *r.Provenance.Steps)
	}
	slices.SortFunc(rs, func(a, b review.StepRange) int { return cmp.Or(a.From-b.From, a.To-b.To) })
	return slices.Compact(rs)
}

func overlaps(rs []review.StepRange, r review.StepRange) bool {
	for _, c := range rs {
		if r.From <= c.To && c.From <= r.To {
			return true
		}
	}
	return false
}

func (m *Model) trajectoryContent(w int) string {
	st := m.Styles
	m.citedLine = -1
	t := m.cur.Traj
	if t == nil {
		if m.cur.P.Trajectory == "" {
			return st.Subtle.Render(common.Wrap("This proposal names no trajectory.", w))
		}
		return st.Error.Render(common.Wrap("Trajectory "+m.cur.P.Trajectory+" is not in the bank.", w))
	}
	var b strings.Builder
	b.WriteString(common.OutcomeLine(st, t.Outcome) + "\n")
	b.WriteString(common.Indent(st.Label.Render("task: "), t.Task, w, 6) + "\n")
	if t.Env != "" {
		b.WriteString(st.Label.Render("env: ") + t.Env + "\n")
	}
	if t.Outcome.Notes != "" {
		b.WriteString(common.Indent(st.Label.Render("notes: "), t.Outcome.Notes, w, 7) + "\n")
	}
	cited := m.cur.cited()
	if len(cited) > 0 {
		var rs []string
		for _, r := range cited {
			rs = append(rs, common.StepRange(r))
		}
		b.WriteString(st.Label.Render("cites: ") + st.Marked.Render(strings.Join(rs, ", ")) + "\n")
	}
	if pk := t.Distilled; pk != nil {
		b.WriteString("\n" + st.Title.Render("Distilled") + "\n")
		for _, o := range pk.Observations {
			lead := fmt.Sprintf("%-5s ", stepNums(o.Steps))
			b.WriteString(m.Styles.MarkLines(common.Indent(lead, o.Text, w-1, 6), overlaps(cited, o.Steps)) + "\n")
		}
		list(&b, m, "procedures", pk.Procedures, w)
		list(&b, m, "assumptions", pk.Assumptions, w)
		if pk.Answer != "" {
			b.WriteString(common.Indent(st.Label.Render("answer: "), pk.Answer, w, 8) + "\n")
		}
	}
	if len(t.Retrieved) > 0 {
		b.WriteString(common.Indent(st.Label.Render("retrieved: "), strings.Join(t.Retrieved, ", "), w, 11) + "\n")
	}
	b.WriteString("\n")
	if !m.raw {
		b.WriteString(st.Subtle.Render(common.Wrap(fmt.Sprintf("t shows the %d raw steps", len(t.Steps)), w)))
		return b.String()
	}
	b.WriteString(st.Title.Render(fmt.Sprintf("Steps (%d)", len(t.Steps))) + "\n")
	for i, s := range t.Steps {
		n := i + 1
		on := false
		for _, r := range cited {
			on = on || r.Contains(n)
		}
		if on && m.citedLine < 0 {
			m.citedLine = strings.Count(b.String(), "\n")
		}
		b.WriteString(m.Styles.MarkLines(stepText(n, s, w-1), on) + "\n")
	}
	return b.String()
}

func stepNums(r review.StepRange) string {
	if r.From == r.To {
		return strconv.Itoa(r.From)
	}
	return fmt.Sprintf("%d–%d", r.From, r.To)
}

func list(b *strings.Builder, m *Model, name string, items []string, w int) {
	if len(items) == 0 {
		return
	}
	b.WriteString(m.Styles.Label.Render(name+":") + "\n")
	for _, it := range items {
		b.WriteString(common.Indent("  • ", it, w, 4) + "\n")
	}
}

// stepText renders one raw step: number, role, content, tool calls.
func stepText(n int, s review.Step, w int) string {
	var parts []string
	if c := strings.TrimSpace(s.Content); c != "" {
		parts = append(parts, c)
	}
	for _, tc := range s.ToolCalls {
		parts = append(parts, "→ "+tc.Name+" "+common.ReadableJSON(tc.Arguments))
	}
	role := s.Role
	if s.Name != "" {
		role += " " + s.Name
	}
	lead := fmt.Sprintf("%3d %s: ", n, role)
	pad := 4
	text := common.Indent(lead, common.Printable(strings.Join(parts, "\n")), w, pad)
	lines := strings.Split(text, "\n")
	if len(lines) > maxStepLines {
		more := len(lines) - maxStepLines
		lines = append(lines[:maxStepLines], fmt.Sprintf("    … %d more lines", more))
	}
	return strings.Join(lines, "\n")
}

func (m *Model) candidateContent(w int) string {
	st := m.Styles
	c := m.cur
	p := redactedView(c.P) // a secret shows as its redaction marker (findings.go)
	var b strings.Builder
	m.writeFindings(&b, w)
	if c.Conflict != nil {
		b.WriteString(st.Banner.Render(common.Wrap("⚠ CONFLICT: "+c.Conflict.Error()+". Accepting now would overwrite that change; reject, or re-review against the version shown below.", w)) + "\n\n")
	}
	b.WriteString(st.Badge.Render(strings.ToUpper(string(p.Op))))
	if p.Record != nil {
		b.WriteString(st.Subtle.Render(fmt.Sprintf(" confidence %.2f", p.Record.Confidence)))
	}
	b.WriteString("\n")
	if len(c.Lacks) > 0 { // before the diffs: the operator must see it before a
		var ls []string
		for _, l := range c.Lacks {
			ls = append(ls, l.String())
		}
		b.WriteString(st.Warn.Render(common.Wrap("⚠ The proposal's record drops content of the records it merges ("+
			strings.Join(ls, "; ")+"). Accept keeps it all: listed below the diffs.", w)) + "\n")
	}
	switch {
	case p.Op == review.OpSkip:
		b.WriteString(st.Subtle.Render(common.Wrap("The curator proposes no change to the bank.", w)) + "\n")
	case p.Op == review.OpCreate || len(p.Targets) == 0:
		if p.Record != nil {
			b.WriteString(st.Label.Render("new record "+p.Record.ID) + "\n")
			m.writeDiff(&b, common.DiffFields(nil, p.Record), w)
		}
	default:
		for i, t := range p.Targets {
			cur := c.Targets[i]
			head := fmt.Sprintf("%s v%d", t.ID, t.Version)
			if cur == nil {
				head += " (no longer in the bank)"
			} else if cur.Version != t.Version {
				head = fmt.Sprintf("%s v%d (proposal saw v%d)", t.ID, cur.Version, t.Version)
			}
			b.WriteString("\n" + st.Label.Render(opVerb(p.Op)+" "+head) + "\n")
			after := p.Record
			if p.Op == review.OpDelete {
				after = nil
			}
			m.writeDiff(&b, common.DiffFields(cur, after), w)
		}
		m.writeLacks(&b, w)
	}
	b.WriteString("\n" + st.Title.Render("Rationale") + "\n")
	b.WriteString(common.Wrap(common.Printable(p.Rationale), w) + "\n")
	var ev []string
	for _, r := range p.Evidence.Steps {
		ev = append(ev, common.StepRange(r))
	}
	ev = append(ev, p.Evidence.ProbeRuns...)
	if len(ev) > 0 {
		b.WriteString(common.Indent(st.Label.Render("evidence: "), strings.Join(ev, ", "), w, 10) + "\n")
	}
	if p.CuratorRun != "" {
		b.WriteString(st.Label.Render("curator run: ") + p.CuratorRun + "\n")
	}
	m.relatedLine = -1
	if len(c.Related) > 0 || c.RelatedErr != nil {
		m.relatedLine = strings.Count(b.String(), "\n") + 1 // the blank line, then the heading
	}
	m.writeRelated(&b, w)
	out := strings.TrimRight(b.String(), "\n")
	// Below the fold, the related records are one key away: the first
	// line says so.
	if n := len(c.Related); n > 0 && m.relatedLine >= m.panes.Body(paneCandidate).Height() {
		hint := st.Subtle.Render(common.Wrap(fmt.Sprintf("Related (%d) ↓ below · o shows them", n), w))
		out = hint + "\n" + out
		m.relatedLine += strings.Count(hint, "\n") + 1
	}
	return out
}

func opVerb(op review.Op) string {
	switch op {
	case review.OpUpdate:
		return "updates"
	case review.OpNarrow:
		return "narrows"
	case review.OpMerge:
		return "merges"
	case review.OpDelete:
		return "retires"
	}
	return string(op)
}

// writeDiff writes diff lines wrapped under their "- "/"+ "/"  " marker. A
// changed field ("- old" then "+ new") marks the words that differ
// (common.WordDiff: [-removed-], {+added+}), so a changed number or name
// stands out of a long lemma.
func (m *Model) writeDiff(b *strings.Builder, lines []common.DiffLine, w int) {
	lines = slices.Clone(lines)
	for i := 0; i+1 < len(lines); i++ {
		if lines[i].Op == '-' && lines[i+1].Op == '+' {
			lines[i].Text, lines[i+1].Text = common.WordDiff(lines[i].Text, lines[i+1].Text)
			i++
		}
	}
	for _, l := range lines {
		text := common.Indent(string(l.Op)+" ", l.Text, w, 2)
		switch l.Op {
		case '-':
			text = m.Styles.Removed.Render(text)
		case '+':
			text = m.Styles.Added.Render(text)
		}
		b.WriteString(text + "\n")
	}
}

// writeLacks says what a merge proposal's own record drops of its targets,
// which accepting it keeps (review.AcceptedRecord): every sentence, step
// and check, with the output the check expects.
func (m *Model) writeLacks(b *strings.Builder, w int) {
	st := m.Styles
	if len(m.cur.Lacks) == 0 {
		return
	}
	b.WriteString("\n" + st.Title.Render(common.Wrap("Accept also keeps (the proposal's record drops it; e or m edits it out)", w)) + "\n")
	for _, l := range m.cur.Lacks {
		b.WriteString(st.Label.Render(common.Wrap(l.String(), w)) + "\n")
		for _, s := range l.Sentences {
			b.WriteString(st.Added.Render(common.Indent("+ sentence: ", common.Printable(s), w, 4)) + "\n")
		}
		for _, s := range l.Steps {
			b.WriteString(st.Added.Render(common.Indent("+ step: ", common.Printable(s), w, 4)) + "\n")
		}
		for _, c := range l.Checks {
			b.WriteString(st.Added.Render(common.Indent("+ check: ", common.Printable(c.Env+": "+c.Input), w, 4)) + "\n")
			b.WriteString(st.Subtle.Render(common.Indent("    expects ", common.Expects(c), w, 6)) + "\n")
		}
	}
}
