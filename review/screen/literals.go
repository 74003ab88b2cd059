package screen

import (
	"regexp/syntax"
	"strings"
	"unicode"
)

// requiredLiterals returns a set of strings, in lower case, one of which
// every match of pattern contains — the keywords that gate a rule — or
// nil when the pattern has no such set (the rule then always runs).
// Deriving the gate from the pattern keeps the two from drifting apart.
func requiredLiterals(pattern string) []string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	set := literalsOf(re.Simplify())
	if len(set) == 0 {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, s := range set {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// literalsOf returns strings one of which every match of re contains,
// or nil.
func literalsOf(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		// the subjects are lower case, or matched ignoring ASCII case
		return []string{strings.Map(unicode.ToLower, string(re.Rune))}
	case syntax.OpCapture:
		return literalsOf(re.Sub[0])
	case syntax.OpPlus:
		return literalsOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return literalsOf(re.Sub[0])
		}
		return nil
	case syntax.OpCharClass:
		// a small class stands for its runes (after case folding)
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1]-re.Rune[i] > 8 {
				return nil
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				out = append(out, string(unicode.ToLower(r)))
			}
		}
		if len(out) == 0 || len(out) > 8 {
			return nil
		}
		return out
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			l := literalsOf(sub)
			if l == nil {
				return nil
			}
			out = append(out, l...)
		}
		return out
	case syntax.OpConcat:
		// every part is required: take the most selective one, and
		// join adjacent literal parts into one longer literal
		var best []string
		bestLen := -1
		consider := func(l []string) {
			if l == nil {
				return
			}
			m := len(l[0])
			for _, s := range l {
				m = min(m, len(s))
			}
			if m > bestLen || m == bestLen && len(l) < len(best) {
				best, bestLen = l, m
			}
		}
		run := ""
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral {
				run += strings.Map(unicode.ToLower, string(sub.Rune))
				continue
			}
			if run != "" {
				consider([]string{run})
				run = ""
			}
			if sub.Op == syntax.OpEmptyMatch || sub.Op == syntax.OpBeginLine || sub.Op == syntax.OpEndLine ||
				sub.Op == syntax.OpBeginText || sub.Op == syntax.OpEndText || sub.Op == syntax.OpWordBoundary || sub.Op == syntax.OpNoWordBoundary {
				continue
			}
			consider(literalsOf(sub))
		}
		if run != "" {
			consider([]string{run})
		}
		return best
	}
	return nil
}
