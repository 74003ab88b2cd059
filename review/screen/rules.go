package screen

import (
	"regexp"
	"slices"
	"strings"
)

// A textRule is a regular expression over the folded view of the text
// (or over the raw text, for the few rules where case or exact bytes
// matter), gated by keywords taken from the pattern itself: the rule
// runs only on lines that hold them. Rules are values in the tables below, one line of
// reason each; the reason never quotes the text.
type textRule struct {
	id     string
	kind   Kind
	reason string
	// gate is the rule's keywords, derived from its pattern: one of each
	// set must occur on a line for the rule to run there (nil: always).
	gate [][]string
	re   *regexp.Regexp
	raw  bool // match the raw text rather than the folded view
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

// textRules returns the instruction and exfiltration rules, compiled:
// a pattern whose top level is an alternation is split into one rule per
// alternative (same id and reason), each a smaller machine with its own,
// sharper gate.
func textRules() []*textRule {
	var out []*textRule
	for _, r := range append(instructionRules(), exfiltrationRules()...) {
		parts := splitAlternatives(r.re.String())
		if len(parts) < 2 || r.vetAll != nil {
			r.gate = requiredSets(r.re.String())
			out = append(out, r)
			continue
		}
		for _, p := range parts {
			c := *r
			c.re = regexp.MustCompile(p)
			c.gate = requiredSets(p)
			out = append(out, &c)
		}
	}
	return out
}

// ruleSet is the compiled text rules with their keyword prefilter.
type ruleSet struct {
	rules []*textRule
	kw    *keywordSet
	// gates[i][j] are the keyword ids of rule i's j-th required set
	gates [][][]int
}

func newRuleSet(rules []*textRule) *ruleSet {
	rs := &ruleSet{rules: rules}
	idx := map[string]int{}
	var kws []string
	for _, r := range rules {
		var g [][]int
		for _, set := range r.gate {
			var ids []int
			for _, k := range set {
				i, ok := idx[k]
				if !ok {
					i = len(kws)
					idx[k] = i
					kws = append(kws, k)
				}
				ids = append(ids, i)
			}
			g = append(g, ids)
		}
		rs.gates = append(rs.gates, g)
	}
	rs.kw = newKeywordSet(kws)
	return rs
}

// active returns the rules to run on a text, in table order, each with
// the lines of its subject (the folded view, or the raw text for raw
// rules; keywords are matched ignoring ASCII case) that hold a keyword
// of every one of its required sets. A rule without a gate runs on the
// whole text.
func (rs *ruleSet) active(folded, raw string) []activeRule {
	hits := [2][][]int32{rs.kw.lineHits(folded), nil}
	var out []activeRule
	for i, r := range rs.rules {
		g := rs.gates[i]
		if len(g) == 0 {
			out = append(out, activeRule{rule: r})
			continue
		}
		h := hits[0]
		if r.raw {
			if hits[1] == nil {
				hits[1] = rs.kw.lineHits(raw)
			}
			h = hits[1]
		}
		var lines []int32
		for j, set := range g {
			var u []int32
			for _, k := range set {
				u = append(u, h[k]...)
			}
			u = uniqueSorted(u)
			if j == 0 {
				lines = u
			} else {
				lines = intersect(lines, u)
			}
			if len(lines) == 0 {
				break
			}
		}
		if len(lines) > 0 {
			out = append(out, activeRule{rule: r, lines: lines})
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

// intersect returns the values in both sorted slices.
func intersect(a, b []int32) []int32 {
	var out []int32
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}
