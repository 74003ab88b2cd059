package screen

import (
	"sort"
	"unicode/utf8"
)

// Kind is what a finding says is wrong with a span of text.
type Kind string

// The four kinds of finding.
const (
	// Instruction is text aimed at a model rather than describing the
	// environment: overrides of prior instructions, chat role markers,
	// directives about how the agent treats its user or its rules,
	// tool-call markup and harmful commands.
	Instruction Kind = "instruction"
	// Exfiltration is text that would move data out: URLs carrying data
	// or placeholders, collector and webhook hosts, "send … to <url>",
	// uploads, curl | sh, hosts in no environment.
	Exfiltration Kind = "exfiltration"
	// Secret is a credential: a provider key, a token, a private key, a
	// password in a connection string.
	Secret Kind = "secret"
	// HiddenText is text a reader does not see as written: Unicode tags,
	// bidi controls, zero-width runs, mixed-script (homoglyph) words and
	// hosts, HTML comments and hidden markup, control characters, long
	// base64 or hex blobs.
	HiddenText Kind = "hidden-text"
)

// Kinds lists the four kinds in the order reports show them.
var Kinds = []Kind{Instruction, Exfiltration, Secret, HiddenText}

// SourceRules and SourceLLM say which screen made a finding.
const (
	SourceRules = "rules"
	SourceLLM   = "llm"
)

// A Finding is one span of screened text and why it was flagged.
//
// Start and End are BYTE offsets into the screened text (the field's text
// for ScreenFields), half-open: text[Start:End] is the span. Both always
// lie on UTF-8 rune boundaries, 0 <= Start <= End <= len(text). A front
// end that counts runes or cells converts with RuneSpan.
type Finding struct {
	Kind  Kind   `json:"kind"`
	Field string `json:"field,omitempty"` // the field's name (ScreenFields); "" for plain text
	Start int    `json:"start"`
	End   int    `json:"end"`
	// Rule names the rule that fired: one of this package's rule ids, a
	// gitleaks rule id for secrets, or "llm".
	Rule string `json:"rule"`
	// Reason is one line saying what was found. It never quotes the
	// span, so it never holds a secret; a host name it quotes is escaped
	// for the terminal.
	Reason string `json:"reason"`
	// Source is SourceRules or SourceLLM.
	Source string `json:"source"`
}

// RuneSpan converts f's byte span in text to rune offsets (for a front
// end that indexes text by rune). text must be the text f was found in.
func (f Finding) RuneSpan(text string) (start, end int) {
	s, e := clampSpan(text, f.Start, f.End)
	start = utf8.RuneCountInString(text[:s])
	return start, start + utf8.RuneCountInString(text[s:e])
}

// HasSecret reports whether any finding is a secret: the caller refuses
// such a proposal (or stores it redacted when the bank says redact).
func HasSecret(fs []Finding) bool {
	for _, f := range fs {
		if f.Kind == Secret {
			return true
		}
	}
	return false
}

// CountKinds counts findings by kind.
func CountKinds(fs []Finding) map[Kind]int {
	m := map[Kind]int{}
	for _, f := range fs {
		m[f.Kind]++
	}
	return m
}

// sortFindings orders findings by field order (as given), start, end,
// kind and rule, drops exact duplicates (same field, kind, span) and
// joins overlapping findings of one rule into one.
func sortFindings(fs []Finding, fieldOrder map[string]int) []Finding {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if fa, fb := fieldOrder[a.Field], fieldOrder[b.Field]; fa != fb {
			return fa < fb
		}
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		if a.End != b.End {
			return a.End > b.End
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Rule < b.Rule
	})
	out := fs[:0]
	type key struct {
		field, rule string
		kind        Kind
	}
	last := map[key]int{} // the last kept finding of each field, kind, rule
	for i, f := range fs {
		if i > 0 {
			p := out[len(out)-1]
			if p.Field == f.Field && p.Kind == f.Kind && p.Start == f.Start && p.End == f.End {
				continue
			}
		}
		k := key{f.Field, f.Rule, f.Kind}
		if j, ok := last[k]; ok && f.Start < out[j].End {
			out[j].End = max(out[j].End, f.End) // overlapping matches of one rule: one span
			continue
		}
		last[k] = len(out)
		out = append(out, f)
	}
	return out
}

// clampSpan keeps a span inside text and moves its ends back onto rune
// boundaries.
func clampSpan(text string, start, end int) (int, int) {
	if start < 0 {
		start = 0
	}
	if end > len(text) {
		end = len(text)
	}
	if start > end {
		start = end
	}
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	for end < len(text) && end > 0 && !utf8.RuneStart(text[end]) {
		end++
	}
	return start, end
}
