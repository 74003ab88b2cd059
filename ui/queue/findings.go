package queue

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
)

// The poisoning screen's findings on the candidate pane: a banner line
// ("flagged: 2 findings (instruction, secret)"), then each flagged field's
// text with its spans marked where they sit ([!…!] and the Flagged style,
// so they show without colour too) and, under it, each finding's kind,
// span, rule (or "judge" for the LLM's) and reason. A secret is shown as
// its redaction marker, never as its text, there and everywhere else the
// pane shows the proposal (redactedView); hidden text is shown escaped.

// spanOpen and spanClose mark a flagged span without colour.
const spanOpen, spanClose = "[!", "!]"

// findingContext is how many runes of a long field's text are shown on
// each side of a flagged span; maxSpanRunes caps the span itself.
const (
	findingContext = 60
	maxSpanRunes   = 80
)

// screenNow gives p the findings of the service's current rules when
// it was screened with others, or never (queued before the screen):
// the service screens it again (ProposalFindings), storing nothing. A
// failure leaves p as stored; the service screens it again at accept.
func screenNow(svc *app.Service, p *review.Proposal) {
	if p.Screen != nil && p.Screen.Rules == app.ScreenRules {
		return
	}
	if fs, err := svc.ProposalFindings(p.ID); err == nil {
		p.Screen = &review.Screening{Rules: app.ScreenRules, Findings: fs}
	}
}

// findings are the proposal's screen findings (every field, the
// rationale too), ordered as the service stored them.
func findings(p *review.Proposal) []review.Finding {
	if p == nil || p.Screen == nil {
		return nil
	}
	return p.Screen.Findings
}

// flaggedBanner is the one-line summary at the top of the pane, "" for
// a proposal the screen did not flag.
func flaggedBanner(fs []review.Finding) string {
	if len(fs) == 0 {
		return ""
	}
	return fmt.Sprintf("⚠ flagged: %d finding%s (%s)", len(fs), plural(len(fs)), strings.Join(findingKinds(fs), ", "))
}

// findingKinds are the distinct kinds of fs in the screen's order.
func findingKinds(fs []review.Finding) []string {
	var out []string
	for _, k := range []string{"instruction", "exfiltration", "secret", "hidden-text"} {
		if slices.ContainsFunc(fs, func(f review.Finding) bool { return f.Kind == k }) {
			out = append(out, k)
		}
	}
	for _, f := range fs { // a kind newer than this list
		if !slices.Contains(out, f.Kind) {
			out = append(out, f.Kind)
		}
	}
	return out
}

// writeFindings writes the banner and the findings of the shown
// proposal, at width w; nothing for an unflagged one.
func (m *Model) writeFindings(b *strings.Builder, w int) {
	p := m.cur.P
	fs := findings(p)
	if len(fs) == 0 {
		return
	}
	st := m.Styles
	b.WriteString(st.Banner.Render(common.Wrap(flaggedBanner(fs), w)) + "\n")
	if p.Screen.Redacted {
		b.WriteString(st.Subtle.Render(common.Wrap("secrets were redacted before the proposal was stored", w)) + "\n")
	}
	texts := p.Texts()
	for _, name := range fieldOrder(fs, texts) {
		var in []review.Finding
		for _, f := range fs {
			if f.Field == name {
				in = append(in, f)
			}
		}
		text, ok := fieldText(texts, name)
		label := displayField(name)
		if ok {
			b.WriteString(common.Indent(st.Label.Render(label+": "), m.markSpans(text, in), w, 2) + "\n")
		}
		for _, f := range in {
			head := fmt.Sprintf("%s · %s · %s", f.Kind, spanText(f), findingBy(f))
			b.WriteString(common.Indent("  "+st.Warn.Render(head)+" ", common.PrintableLine(f.Reason), w, 4) + "\n")
		}
	}
	b.WriteString("\n")
}

// fieldOrder is the fields findings name, in the proposal's order (a
// field it no longer has last).
func fieldOrder(fs []review.Finding, texts []review.Text) []string {
	var out []string
	for _, t := range texts {
		if slices.ContainsFunc(fs, func(f review.Finding) bool { return f.Field == t.Name }) {
			out = append(out, t.Name)
		}
	}
	for _, f := range fs {
		if !slices.Contains(out, f.Field) {
			out = append(out, f.Field)
		}
	}
	return out
}

func fieldText(texts []review.Text, name string) (string, bool) {
	for _, t := range texts {
		if t.Name == name {
			return t.Text, true
		}
	}
	return "", false
}

// displayField names a field as the diff does: steps[0] is "step 1",
// checks[0].input "check 1".
func displayField(name string) string {
	var i int
	switch {
	case name == "":
		return "text"
	case scan(name, "steps[%d]", &i):
		return fmt.Sprintf("step %d", i+1)
	case scan(name, "checks[%d].input", &i):
		return fmt.Sprintf("check %d", i+1)
	}
	return name
}

func scan(name, format string, i *int) bool {
	n, err := fmt.Sscanf(name, format, i)
	return err == nil && n == 1 && fmt.Sprintf(format, *i) == name
}

// spanText is where a finding sits: "lemma 12–41" (byte offsets, as
// the CLI and the decision's note give them).
func spanText(f review.Finding) string {
	return fmt.Sprintf("%s %d–%d", displayField(f.Field), f.Start, f.End)
}

// findingBy is the rule that found f, or "judge" for the LLM judge's.
func findingBy(f review.Finding) string {
	if f.Source != "" && f.Source != "rules" {
		return "judge"
	}
	return common.PrintableLine(f.Rule)
}

// region is a run of text covered by overlapping findings.
type region struct {
	start, end int
	secret     string // the rule of the first secret in it; "" for none
	hidden     bool   // a hidden-text finding covers it
}

// regions joins fs's spans in text (clamped onto rune boundaries) into
// disjoint runs, in order.
func regions(text string, fs []review.Finding) []region {
	var rs []region
	for _, f := range fs {
		s, e := clamp(text, f.Start, f.End)
		r := region{start: s, end: e, hidden: f.Kind == "hidden-text"}
		if f.Kind == review.FindingSecret {
			r.secret = f.Rule
		}
		rs = append(rs, r)
	}
	slices.SortFunc(rs, func(a, b region) int { return a.start - b.start })
	var out []region
	for _, r := range rs {
		if n := len(out); n > 0 && r.start <= out[n-1].end {
			last := &out[n-1]
			last.end = max(last.end, r.end)
			last.hidden = last.hidden || r.hidden
			if last.secret == "" {
				last.secret = r.secret
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// markSpans renders text with fs's spans marked: the text between them
// Printable and, in a long text, cut to findingContext runes around each
// span; a secret replaced by its redaction marker; hidden text escaped.
func (m *Model) markSpans(text string, fs []review.Finding) string {
	var b strings.Builder
	at := 0
	for i, r := range regions(text, fs) {
		before := text[at:r.start]
		if i == 0 {
			before = keepTail(before)
		} else {
			before = keepEnds(before)
		}
		b.WriteString(common.PrintableLine(before))
		b.WriteString(m.markSpan(spanShown(text[r.start:r.end], r)))
		at = r.end
	}
	b.WriteString(common.PrintableLine(keepHead(text[at:])))
	return b.String()
}

// markSpan styles each word of a shown span on its own (a wrapped line
// never ends inside a style) and brackets the span.
func (m *Model) markSpan(s string) string {
	words := strings.Fields(s)
	if len(words) == 0 {
		words = []string{""}
	}
	words[0] = spanOpen + words[0]
	words[len(words)-1] += spanClose
	for i, w := range words {
		words[i] = m.Styles.Flagged.Render(w)
	}
	return strings.Join(words, " ")
}

// spanShown is what the pane shows of a span: a secret's marker, hidden
// text escaped, anything else Printable on one line, cut to maxSpanRunes.
func spanShown(s string, r region) string {
	if r.secret != "" {
		return app.RedactMarker(r.secret)
	}
	s = cutMiddle(s, maxSpanRunes)
	if r.hidden {
		return escapeHidden(s)
	}
	return common.PrintableLine(s)
}

// escapeHidden shows what a reader would not see as written: a run of
// Unicode tags decoded ([tags: "…"], as common.Printable shows it), and
// every other rune that is not ASCII or not graphic as \u{XXXX}, so a
// bidi control, a zero-width space or a homoglyph stands out where it is.
func escapeHidden(s string) string {
	var b strings.Builder
	tags := ""
	for _, r := range s {
		if common.IsTag(r) {
			tags += string(r)
			continue
		}
		if tags != "" {
			b.WriteString(common.Printable(tags))
			tags = ""
		}
		if r == ' ' || r < utf8.RuneSelf && unicode.IsGraphic(r) {
			b.WriteRune(r)
			continue
		}
		fmt.Fprintf(&b, `\u{%X}`, r)
	}
	if tags != "" {
		b.WriteString(common.Printable(tags))
	}
	return b.String()
}

// cutMiddle keeps the first and last runes of s when it is longer than
// n runes, with "…" between.
func cutMiddle(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	half := n / 2
	return string(rs[:half]) + "…" + string(rs[len(rs)-half:])
}

// keepTail, keepHead and keepEnds cut the text before the first span,
// after the last and between two to findingContext runes on each side.
func keepTail(s string) string {
	rs := []rune(s)
	if len(rs) <= findingContext {
		return s
	}
	return "…" + string(rs[len(rs)-findingContext:])
}

func keepHead(s string) string {
	rs := []rune(s)
	if len(rs) <= findingContext {
		return s
	}
	return string(rs[:findingContext]) + "…"
}

func keepEnds(s string) string {
	rs := []rune(s)
	if len(rs) <= 2*findingContext {
		return s
	}
	return string(rs[:findingContext]) + " … " + string(rs[len(rs)-findingContext:])
}

// clamp keeps a span inside text, on rune boundaries.
func clamp(text string, start, end int) (int, int) {
	start, end = max(start, 0), min(end, len(text))
	start = min(start, end)
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && !utf8.RuneStart(text[end]) {
		end++
	}
	return start, end
}

// redactedView is p as the pane shows it: every secret a finding names
// replaced by its redaction marker in a copy of the record and the
// rationale (p itself is untouched). A proposal without a secret
// finding is returned as it is.
func redactedView(p *review.Proposal) *review.Proposal {
	fs := findings(p)
	if !slices.ContainsFunc(fs, func(f review.Finding) bool { return f.Kind == review.FindingSecret }) {
		return p
	}
	q := *p
	if p.Record != nil {
		r := *p.Record
		r.Steps = slices.Clone(r.Steps)
		r.Checks = slices.Clone(r.Checks)
		q.Record = &r
	}
	for _, t := range p.Texts() {
		var secrets []review.Finding
		for _, f := range fs {
			if f.Field == t.Name && f.Kind == review.FindingSecret {
				secrets = append(secrets, f)
			}
		}
		if len(secrets) > 0 {
			q.SetText(t.Name, redactText(t.Text, secrets))
		}
	}
	return &q
}

// redactText replaces each secret's span in text by its marker.
func redactText(text string, secrets []review.Finding) string {
	var b strings.Builder
	at := 0
	for _, r := range regions(text, secrets) {
		b.WriteString(text[at:r.start])
		b.WriteString(app.RedactMarker(r.secret))
		at = r.end
	}
	b.WriteString(text[at:])
	return b.String()
}
