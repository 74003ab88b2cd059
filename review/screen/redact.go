package screen

import (
	"sort"
	"strings"
)

// RedactMarker is the text that replaces a secret: "[redacted: RULE]",
// RULE naming the kind of secret (a gitleaks rule id such as
// aws-access-token, or one of this package's: url-password, …).
func RedactMarker(rule string) string { return "[redacted: " + rule + "]" }

// Redact screens text and returns it with every secret replaced by its
// RedactMarker, and the findings of the original text (every kind; spans
// are offsets into the original). It is what a bank with redact = true
// stores instead of refusing.
func Redact(text string) (string, []Finding) { return defaultScreener.Redact(text) }

// Redact is the package-level Redact with s's settings.
func (s *Screener) Redact(text string) (string, []Finding) {
	fs := s.Screen(text)
	return redactWith(text, fs).text, fs
}

// RedactFields redacts each field; the findings name their fields.
func (s *Screener) RedactFields(fields ...Field) ([]Field, []Finding) {
	fs := s.ScreenFields(fields...)
	out := make([]Field, len(fields))
	for i, f := range fields {
		out[i] = Field{Name: f.Name, Text: redactWith(f.Text, fieldFindings(fs, f.Name)).text}
	}
	return out, fs
}

func fieldFindings(fs []Finding, name string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Field == name {
			out = append(out, f)
		}
	}
	return out
}

// redaction is a redacted text and where its markers came from, so that
// an offset into it (a judge's quote) maps back to the original.
type redaction struct {
	text  string
	marks []mark
}

// mark is one marker: [at, at+n) in the redacted text replaced
// [start, end) of the original.
type mark struct{ at, n, start, end int }

// redactWith replaces the secret findings' spans (overlapping ones
// merged; the marker names the first) in text.
func redactWith(text string, fs []Finding) redaction {
	type span struct {
		s, e int
		rule string
	}
	var spans []span
	for _, f := range fs {
		if f.Kind == Secret && f.End > f.Start {
			spans = append(spans, span{f.Start, f.End, baseRule(f.Rule)})
		}
	}
	if len(spans) == 0 {
		return redaction{text: text}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].s < spans[j].s })
	merged := spans[:1]
	for _, sp := range spans[1:] {
		last := &merged[len(merged)-1]
		if sp.s < last.e {
			last.e = max(last.e, sp.e)
			continue
		}
		merged = append(merged, sp)
	}
	var b strings.Builder
	var marks []mark
	prev := 0
	for _, sp := range merged {
		b.WriteString(text[prev:sp.s])
		m := RedactMarker(sp.rule)
		marks = append(marks, mark{at: b.Len(), n: len(m), start: sp.s, end: sp.e})
		b.WriteString(m)
		prev = sp.e
	}
	b.WriteString(text[prev:])
	return redaction{text: b.String(), marks: marks}
}

// baseRule drops the "+base64-blob" suffix a decoded finding carries.
func baseRule(rule string) string {
	if i := strings.IndexByte(rule, '+'); i > 0 {
		return rule[:i]
	}
	return rule
}

// toOriginal maps a span of the redacted text to the original: a span
// that touches a marker covers the secret it replaced.
func (r redaction) toOriginal(s, e int) (int, int) {
	return r.offset(s, false), r.offset(e, true)
}

func (r redaction) offset(i int, end bool) int {
	delta := 0
	for _, m := range r.marks {
		switch {
		case i <= m.at:
			return i - delta
		case i < m.at+m.n && !end:
			return m.start // inside a marker: the start of its secret
		case i <= m.at+m.n:
			return m.end
		}
		delta += m.n - (m.end - m.start)
	}
	return i - delta
}
