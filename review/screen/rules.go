package screen

import (
	"regexp"
	"slices"
	"strings"
)

// A textRule is a regular expression over the folded view of the text
// (or over the raw text, for the few rules where case or exact bytes
// matter), gated by keywords: the rule runs only when one of its
// keywords occurs. Rules are values in the tables below, one line of
// reason each; the reason never quotes the text.
type textRule struct {
	id     string
	kind   Kind
	reason string
	keys   []string // in the folded (lower-case) alphabet; nil: always run
	re     *regexp.Regexp
	raw    bool // match the raw text rather than the folded view
	// accept, when set, vets a match (start, end in the text the rule
	// ran on) before it becomes a finding.
	accept func(text string, m []int) bool
	// vetAll, when set, vets all of a rule's matches in a text together;
	// such a rule runs on the whole text. Other rules run only on the
	// lines that hold one of their keywords (none of their patterns
	// crosses a line break).
	vetAll func(text string, ms [][]int) [][]int
}

// alt joins alternatives into a non-capturing group.
func alt(xs ...string) string { return "(?:" + strings.Join(xs, "|") + ")" }

// sentence is a stretch of text within one sentence, up to n bytes: no
// line break, and no . ! ? unless it is followed by a non-space (the dots
// of a URL, a file name or a decimal do not end a sentence).
func sentence(n string) string { return `(?:[^.!?\n]|[.!?]\S){0,` + n + `}?` }

// textRules returns the instruction and exfiltration rules, compiled.
func textRules() []*textRule {
	rules := append(instructionRules(), exfiltrationRules()...)
	for _, r := range rules {
		r.keys = requiredLiterals(r.re.String())
	}
	return rules
}

// ruleSet is the compiled text rules with their keyword prefilter.
type ruleSet struct {
	rules  []*textRule
	always []*textRule
	kw     *keywordSet
	byKW   [][]*textRule
}

func newRuleSet(rules []*textRule) *ruleSet {
	rs := &ruleSet{rules: rules}
	idx := map[string]int{}
	var kws []string
	var gates [][]*textRule
	for _, r := range rules {
		if len(r.keys) == 0 {
			rs.always = append(rs.always, r)
			continue
		}
		for _, k := range r.keys {
			i, ok := idx[k]
			if !ok {
				i = len(kws)
				idx[k] = i
				kws = append(kws, k)
				gates = append(gates, nil)
			}
			gates[i] = append(gates[i], r)
		}
	}
	rs.kw, rs.byKW = newKeywordSet(kws), gates
	return rs
}

// active returns the rules whose keywords occur in their subject — the
// folded view, or the raw text for raw rules (searched ignoring ASCII
// case) — in table order, each with the lines of its subject that hold
// one of its keywords.
func (rs *ruleSet) active(folded, raw string) []activeRule {
	lines := map[*textRule][]int32{}
	on := map[*textRule]bool{}
	for _, r := range rs.always {
		on[r] = true
	}
	mark := func(hits [][]int32, raw bool) {
		for i, h := range hits {
			if len(h) == 0 {
				continue
			}
			for _, r := range rs.byKW[i] {
				if r.raw == raw {
					on[r] = true
					lines[r] = append(lines[r], h...)
				}
			}
		}
	}
	mark(rs.kw.lineHits(folded), false)
	mark(rs.kw.lineHits(raw), true)
	var out []activeRule
	for _, r := range rs.rules {
		if on[r] {
			out = append(out, activeRule{rule: r, lines: uniqueSorted(lines[r])})
		}
	}
	return out
}

// activeRule is a rule to run and the lines it runs on (nil: all).
type activeRule struct {
	rule  *textRule
	lines []int32
}

func uniqueSorted(xs []int32) []int32 {
	slices.Sort(xs)
	return slices.Compact(xs)
}
