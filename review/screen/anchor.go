package screen

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
)

// An anchor runs a secret rule from the places its match can start
// rather than over a whole window. Go's regexp has no DFA: scanning a
// window, its NFA starts a thread at every byte, and a rule that opens
// with gitleaks' lazy "[\w.-]{0,50}?" keeps up to fifty of them alive
// through every word (about 3 µs a byte). Most rules open with that
// prefix or with a word boundary, then a keyword: without the opening,
// every match starts at one of a few literals (the keyword's spellings),
// so the rule runs anchored at each place one occurs, where a failing
// attempt dies within a few bytes and a short one runs on the
// backtracker.
//
// The match is the one the whole pattern gives (same span, same groups):
// for the lazy prefix the start is moved back over the identifier bytes
// before the keyword (prefixStart); for the boundary the byte before must
// not continue a word. TestAnchoredAsWhole holds them to that on the
// labelled set.
type anchor struct {
	re     *regexp.Regexp // ^(?:the pattern after its opening)
	starts *keywordSet    // lower-case literals every match of re begins with
	open   opening
	// assign: the rest is gitleaks' "keyword, assignment, value"
	// template, so a candidate not followed by an assignment and a value
	// (assignmentFollows) is not tried.
	assign bool
}

// opening is what an anchor stripped from the front of a pattern.
type opening int

const (
	openLazy     opening = iota // lazyPrefix
	openBoundary                // boundaryPrefix
	openWord                    // \b, ASCII word boundary
)

// The openings an anchor can strip.
const (
	// lazyPrefix opens most of gitleaks' generated rules: up to fifty
	// identifier bytes before the keyword, matched lazily.
	lazyPrefix = `(?i)[\w.-]{0,50}?`
	// boundaryPrefix opens this package's own rules: the start of the
	// text or a rune that is not part of a word (\b knows ASCII only).
	boundaryPrefix = `(?i)(?:^|[^\pL\pN_])`
)

// prefixMax is how many bytes lazyPrefix takes at most.
const prefixMax = 50

// newAnchor returns the anchor of pattern, or nil when it opens with
// none of the openings or its rest does not start with literals.
func newAnchor(pattern string) *anchor {
	a := &anchor{}
	flags, rest := "", pattern
	switch {
	case strings.HasPrefix(pattern, lazyPrefix):
		a.open, flags, rest = openLazy, "(?i)", pattern[len(lazyPrefix):]
	case strings.HasPrefix(pattern, boundaryPrefix):
		a.open, flags, rest = openBoundary, "(?i)", pattern[len(boundaryPrefix):]
	case strings.HasPrefix(pattern, `\b`):
		a.open, rest = openWord, pattern[2:]
	case strings.HasPrefix(pattern, `(?i)\b`):
		a.open, flags, rest = openWord, "(?i)", pattern[6:]
	default:
		return nil
	}
	// The opening must bind to the whole pattern: "OPENING x|y" opens x
	// only.
	if whole, err := syntax.Parse(pattern, syntax.Perl); err != nil || whole.Op != syntax.OpConcat {
		return nil
	}
	lits := literalStarts(flags + rest)
	if lits == nil {
		return nil
	}
	group := `(?:`
	if flags != "" {
		group = `(?i:`
	}
	re, err := regexp.Compile(`^` + group + rest + `)`)
	if err != nil {
		return nil
	}
	a.re, a.starts = re, newKeywordSet(lits)
	a.assign = a.open == openLazy && strings.Contains(rest, semiGenericTemplate) && valueFits(rest)
	return a
}

// find calls fn with each match in text[w0:w1], leftmost first and not
// overlapping, as the whole pattern's FindAllStringSubmatchIndex on that
// window gives them (offsets into text).
func (a *anchor) find(text string, w0, w1 int, fn func(m []int)) {
	win := text[w0:w1]
	var cands [][2]int // start, end of a literal
	for i, ps := range a.starts.positions(win) {
		for _, p := range ps {
			cands = append(cands, [2]int{w0 + int(p) - len(a.starts.keywords[i]), w0 + int(p)})
		}
	}
	slices.SortFunc(cands, func(x, y [2]int) int { return x[0] - y[0] })
	lo, last := w0, -1 // where the next match may start; the last start tried
	for _, cd := range cands {
		c, start := cd[0], cd[0]
		if c < lo || c == last {
			continue
		}
		switch a.open {
		case openBoundary:
			// the boundary is a rune of the match, after the previous one
			if c > w0 {
				start = c - lastRuneLen(text[:c])
				if start < lo || wordRune(lastRune(text[:c])) {
					continue
				}
			}
		case openWord:
			if (c > w0 && isWordByte(text[c-1])) == isWordByte(text[c]) {
				continue
			}
		case openLazy:
			if a.assign && !assignmentFollows(text, cd[1]) {
				continue
			}
		}
		last = c
		m := a.re.FindStringSubmatchIndex(text[c:w1])
		if m == nil || m[1] == 0 {
			continue
		}
		for j := range m {
			if m[j] >= 0 {
				m[j] += c
			}
		}
		if a.open == openLazy {
			start = prefixStart(text, c, lo)
		}
		m[0], lo = start, m[1]
		fn(m)
	}
}

// assignmentFollows is a necessary condition for gitleaks' template
// "(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)
// [\x60'"\s=]{0,5}(VALUE)" after a keyword literal ending at ke, where
// every VALUE is at least ten bytes of [\w.=+/-]: within 44 bytes of
// identifier, blank or quote bytes, an operator byte; then, after at most
// nine operator, blank or quote bytes, ten value bytes in a row. It
// allows more than the template does, never less (the rest of a keyword
// longer than its literal counts as filler, hence 44 and not 23).
func assignmentFollows(text string, ke int) bool {
	j, end := ke, min(ke+44, len(text))
	for j < end && (isIdentByte(text[j]) || isBlankOrQuote(text[j])) {
		j++
	}
	if j >= len(text) || strings.IndexByte("=>:|?,", text[j]) < 0 {
		return false
	}
	for end = min(j+1+9, len(text)); j < end && (isBlankOrQuote(text[j]) || strings.IndexByte("=>:|?,\x60", text[j]) >= 0); j++ {
	}
	// the value may begin with '=' ([\w.=-]), so count from the first
	// byte that is not a blank or quote back over skipped '=' too
	for j > ke && text[j-1] == '=' {
		j--
	}
	n := 0
	for ; j < len(text) && n < 10 && (isIdentByte(text[j]) || text[j] == '=' || text[j] == '+' || text[j] == '/' || text[j] >= 0x80); j++ {
		n++
	}
	return n == 10
}

// valueTemplate is what comes between the template's operator and its
// value group.
const valueTemplate = `[\x60'"\s=]{0,5}(`

// valueFits reports whether the value group after the template in rest
// only ever matches ten or more bytes of [\w.=+/-], as assignmentFollows
// assumes.
func valueFits(rest string) bool {
	i := strings.Index(rest, valueTemplate)
	if i < 0 {
		return false
	}
	v := firstGroup("(?:" + rest[i+len(valueTemplate):])
	re, err := syntax.Parse("(?i)(?:"+v+")", syntax.Perl)
	if err != nil {
		return false
	}
	n, ok := minLenIn(re.Simplify())
	return ok && n >= 10
}

// minLenIn is the fewest bytes re matches, and whether every rune it can
// match is an ASCII [\w.=+/-].
func minLenIn(re *syntax.Regexp) (int, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if !valueRune(r) {
				return 0, false
			}
		}
		return len(re.Rune), true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if !valueRune(r) {
					return 0, false
				}
			}
		}
		return 1, true
	case syntax.OpCapture, syntax.OpPlus:
		return minLenIn(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		_, ok := minLenIn(re.Sub[0])
		return 0, ok
	case syntax.OpRepeat:
		n, ok := minLenIn(re.Sub[0])
		return n * re.Min, ok
	case syntax.OpConcat:
		total := 0
		for _, sub := range re.Sub {
			n, ok := minLenIn(sub)
			if !ok {
				return 0, false
			}
			total += n
		}
		return total, true
	case syntax.OpAlternate:
		least := -1
		for _, sub := range re.Sub {
			n, ok := minLenIn(sub)
			if !ok {
				return 0, false
			}
			if least < 0 || n < least {
				least = n
			}
		}
		return least, least >= 0
	case syntax.OpEmptyMatch:
		return 0, true
	}
	return 0, false
}

// valueRune: an ASCII [\w.=+/-], or a rune that (?i) folds onto one
// (the long s and the Kelvin sign), which assignmentFollows counts as
// value bytes too.
func valueRune(r rune) bool {
	return r < 0x80 && (isIdentByte(byte(r)) || r == '=' || r == '+' || r == '/') || r == 0x17F || r == 0x212A
}

// firstGroup is the text inside the group a pattern opens with ("" when
// it opens with none).
func firstGroup(p string) string {
	if !strings.HasPrefix(p, "(?:") {
		return ""
	}
	depth := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return p[3:i]
			}
		}
	}
	return ""
}

func isBlankOrQuote(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '\'' || c == '"'
}

// prefixStart is where the lazy prefix's match starts when the rest
// starts at k, no earlier than lo (the window's start or the previous
// match's end): the leftmost of the fifty bytes before k that are all
// identifier bytes. Scanning leftmost first, the whole pattern starts its
// match there: from further left no keyword is reached through identifier
// bytes alone, and a keyword between that start and k with a match of its
// own would have been a candidate before k.
func prefixStart(text string, k, lo int) int {
	p := k
	for p > lo && k-p < prefixMax && isIdentByte(text[p-1]) {
		p--
	}
	return p
}

// wordRune reports a rune that continues a word for boundaryPrefix.
func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_' }

func lastRune(s string) rune {
	for _, r := range s[len(s)-lastRuneLen(s):] {
		return r
	}
	return 0
}

func lastRuneLen(s string) int {
	n := 1
	for n < len(s) && n < 4 && s[len(s)-n]&0xC0 == 0x80 {
		n++
	}
	return n
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '.' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// literalStarts returns lower-case strings one of which every match of
// pattern begins with (matched ignoring ASCII case), or nil when the
// pattern can start otherwise.
func literalStarts(pattern string) []string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	ss, ok := startsOf(re.Simplify())
	if !ok || len(ss) == 0 || len(ss) > maxStarts {
		return nil
	}
	for i, s := range ss {
		if s == "" {
			return nil
		}
		ss[i] = strings.ToLower(s)
	}
	slices.Sort(ss)
	return slices.Compact(ss)
}

// maxStarts bounds the literals of one pattern.
const maxStarts = 256

// startsOf returns strings one of which every match of re begins with.
func startsOf(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpCapture:
		return startsOf(re.Sub[0])
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			ss, ok := startsOf(sub)
			if !ok {
				return nil, false
			}
			out = append(out, ss...)
		}
		return out, len(out) <= maxStarts
	case syntax.OpPlus:
		return startsOf(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return startsOf(re.Sub[0])
		}
		return nil, false
	case syntax.OpLiteral, syntax.OpCharClass:
		return exactStrings(re)
	case syntax.OpConcat:
		acc := []string{""}
		for _, sub := range re.Sub {
			if lits, ok := exactStrings(sub); ok && len(acc)*len(lits) <= maxStarts {
				acc = cross(acc, lits)
				continue
			}
			if ss, ok := startsOf(sub); ok && len(acc)*len(ss) <= maxStarts {
				acc = cross(acc, ss)
			}
			break
		}
		return acc, acc[0] != ""
	}
	return nil, false
}

// exactStrings returns every string re matches, when it is a literal or
// a small class of runes.
func exactStrings(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{string(re.Rune)}, true
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(out) == 16 {
					return nil, false
				}
				out = append(out, strings.ToLower(string(r)))
			}
		}
		slices.Sort(out)
		return slices.Compact(out), len(out) > 0
	}
	return nil, false
}

func cross(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return out
}
