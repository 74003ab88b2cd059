package screen

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
)

// requiredSets returns sets of lower-case strings such that every match
// of pattern contains one string of each set (at most three sets, the
// most selective), or nil.
func requiredSets(pattern string) [][]string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat {
		if l := literalsOf(re); l != nil {
			return [][]string{dedupe(l)}
		}
		return nil
	}
	var sets [][]string
	run := ""
	flush := func() {
		if run != "" {
			sets = append(sets, []string{run})
			run = ""
		}
	}
	for _, sub := range re.Sub {
		if sub.Op == syntax.OpLiteral {
			run += strings.Map(unicode.ToLower, string(sub.Rune))
			continue
		}
		flush()
		if l := literalsOf(sub); l != nil {
			sets = append(sets, dedupe(l))
		}
	}
	flush()
	minLen := func(l []string) int {
		m := len(l[0])
		for _, s := range l {
			m = min(m, len(s))
		}
		return m
	}
	slices.SortStableFunc(sets, func(a, b []string) int { return minLen(b) - minLen(a) })
	if len(sets) > 3 {
		sets = sets[:3]
	}
	return sets
}

func dedupe(l []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range l {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// splitAlternatives returns the top-level alternatives of a pattern
// (split at each | outside groups and classes), or nil when there is
// only one. It reads the pattern's text: printing a parsed pattern back
// is slow for patterns this large.
func splitAlternatives(pattern string) []string {
	var out []string
	depth, start, inClass := 0, 0, false
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '\\':
			i++ // the escaped byte
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			if i+1 < len(pattern) && pattern[i+1] == '^' {
				i++
			}
			if i+1 < len(pattern) && pattern[i+1] == ']' {
				i++ // a ] first in a class is a literal
			}
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			out = append(out, pattern[start:i])
			start = i + 1
		}
	}
	if len(out) == 0 {
		return nil
	}
	return append(out, pattern[start:])
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
