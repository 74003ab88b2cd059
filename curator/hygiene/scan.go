package hygiene

// Hand-written scanners for the regexps a run applies to every lemma
// (claimPatterns' unit pattern, commutePair, commuteList): each gives
// what its regexp's FindAllStringSubmatchIndex(s, -1) gives, without the
// backtracker (the unit regexp alone was 7% of an incremental run's CPU
// at a million records). TestScannersMatchRegexps and FuzzScanners
// compare them with the regexps.
//
// Each regexp decides at a start position without looking back more than
// one step: every repetition is followed by a character it cannot take
// (a letter after \s+, \s after [\w.]+, ", " after [^(),]+), so a
// shorter repetition never matches where the longest failed, and the
// alternatives of a pattern begin with different words. The one
// exception is the unit pattern's \s+ before its lazy value, which gives
// back its last space where nothing else can start the value.

// Scanners, the default, has claimsOf, commute and namedSeqs use the
// scanners; false, the regexps (the findings are the same). The knob is
// for a benchmark's peer.
var Scanners = true

// isSpaceRE is \s of Go's regexps: [\t\n\f\r ].
func isSpaceRE(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// isWordRE is \w of Go's regexps: [0-9A-Za-z_].
func isWordRE(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// hasFoldAt reports whether s[i:] begins with w (lower-case ASCII
// letters) in any ASCII case.
func hasFoldAt(s string, i int, w string) bool {
	if i < 0 || len(s)-i < len(w) {
		return false
	}
	for k := 0; k < len(w); k++ {
		if s[i+k]|0x20 != w[k] {
			return false
		}
	}
	return true
}

// spaceEnd is the end of the run of \s from i.
func spaceEnd(s string, i int) int {
	for i < len(s) && isSpaceRE(s[i]) {
		i++
	}
	return i
}

// unitVerbs are the unit pattern's second alternative's words; each is
// followed by \s+ and "as" or "in".
var unitVerbs = []string{"stored", "kept", "recorded", "held", "expressed", "given", "reported"}

// unitClaimSpans is claimPatterns' unit regexp's
// FindAllStringSubmatchIndex(s, -1) for an ASCII s (the regexp's (?i)
// folds the Kelvin sign and the long s, which this does not see).
func unitClaimSpans(s string) [][]int {
	var out [][]int
	for p := 0; p < len(s); p++ {
		if p > 0 && isWordRE(s[p-1]) || !isWordRE(s[p]) { // \b before a word
			continue
		}
		e, ok := unitHead(s, p)
		if !ok {
			continue
		}
		if m := unitTail(s, p, e); m != nil {
			out = append(out, m)
			p = m[1] - 1 // the next match starts where this one ends
		}
	}
	return out
}

// unitHead matches the unit pattern's alternatives at p and returns
// where the \s+ before the value begins.
func unitHead(s string, p int) (int, bool) {
	switch {
	case hasFoldAt(s, p, "is") || hasFoldAt(s, p, "are"):
		// (?:is|are)\s+(?:stored\s+|kept\s+|given\s+)?in
		i := p + 2
		if s[p]|0x20 == 'a' {
			i = p + 3
		}
		j := spaceEnd(s, i)
		if j == i {
			return 0, false
		}
		for _, w := range []string{"stored", "kept", "given"} {
			if hasFoldAt(s, j, w) {
				if k := spaceEnd(s, j+len(w)); k > j+len(w) && hasFoldAt(s, k, "in") {
					return k + 2, true
				}
				return 0, false // without the word, "in" cannot be where it begins
			}
		}
		if hasFoldAt(s, j, "in") {
			return j + 2, true
		}
		return 0, false
	case hasFoldAt(s, p, "hold"):
		// holds?
		i := p + 4
		if i < len(s) && s[i]|0x20 == 's' {
			i++ // without it, \s+ would have to match the s
		}
		return i, true
	case hasFoldAt(s, p, "store") && !hasFoldAt(s, p, "stored"):
		// stores?\s+[\w.]+\s+(?:as|on)
		i := p + 5
		if i < len(s) && s[i]|0x20 == 's' {
			i++
		}
		j := spaceEnd(s, i)
		if j == i {
			return 0, false
		}
		k := j
		for k < len(s) && (isWordRE(s[k]) || s[k] == '.') {
			k++
		}
		m := spaceEnd(s, k)
		if k == j || m == k || !hasFoldAt(s, m, "as") && !hasFoldAt(s, m, "on") {
			return 0, false
		}
		return m + 2, true
	}
	for _, w := range unitVerbs {
		// (?:stored|kept|recorded|held|expressed|given|reported)\s+(?:as|in)
		if hasFoldAt(s, p, w) {
			j := spaceEnd(s, p+len(w))
			if j > p+len(w) && (hasFoldAt(s, j, "as") || hasFoldAt(s, j, "in")) {
				return j + 2, true
			}
			return 0, false // the verbs begin differently: no other can match here
		}
	}
	return 0, false
}

// unitTail matches \s+([^;,:—()]+?)(?:[;,:—()]|\.(?:\s|$)|$) from e and
// returns the match's span from p and the value's, or nil.
func unitTail(s string, p, e int) []int {
	stop := func(c byte) bool { return c == ';' || c == ',' || c == ':' || c == '(' || c == ')' }
	j := spaceEnd(s, e)
	if j == e {
		return nil
	}
	q := j // the value begins after the spaces
	if j == len(s) || stop(s[j]) {
		if j-e < 2 {
			return nil
		}
		q = j - 1 // or with the last of them, where nothing else may begin it
	}
	for k := q + 1; ; k++ { // the shortest value a terminator follows
		switch {
		case k == len(s):
			return []int{p, k, q, k}
		case stop(s[k]):
			return []int{p, k + 1, q, k}
		case s[k] == '.' && k+1 == len(s):
			return []int{p, k + 1, q, k}
		case s[k] == '.' && isSpaceRE(s[k+1]):
			return []int{p, k + 2, q, k}
		}
	}
}

// commutePairSpans is commutePair's FindAllStringSubmatchIndex(s, -1):
// ([\w./]+) (and|joins|=) ([\w./]+).
func commutePairSpans(s string) [][]int {
	name := func(c byte) bool { return isWordRE(c) || c == '.' || c == '/' }
	var out [][]int
	for a := 0; a < len(s); {
		if !name(s[a]) {
			a++
			continue
		}
		b := a
		for b < len(s) && name(s[b]) {
			b++
		}
		// Every start within a..b takes the name to b: a fails, they fail.
		var op string
		for _, o := range []string{" and ", " joins ", " = "} {
			if len(s)-b >= len(o) && s[b:b+len(o)] == o {
				op = o
				break
			}
		}
		c := b + len(op)
		d := c
		for op != "" && d < len(s) && name(s[d]) {
			d++
		}
		if op == "" || d == c {
			a = b
			continue
		}
		out = append(out, []int{a, d, a, b, b + 1, c - 1, c, d})
		a = d
	}
	return out
}

// commuteListSpans is commuteList's FindAllStringSubmatchIndex(s, -1):
// \(([^(),]+), ([^(),]+)\).
func commuteListSpans(s string) [][]int {
	item := func(s string, i int) int { // the end of a run of [^(),] from i
		for i < len(s) && s[i] != '(' && s[i] != ')' && s[i] != ',' {
			i++
		}
		return i
	}
	var out [][]int
	for i := 0; i < len(s); i++ {
		if s[i] != '(' {
			continue
		}
		b := item(s, i+1)
		if b == i+1 || len(s)-b < 2 || s[b:b+2] != ", " {
			continue
		}
		d := item(s, b+2)
		if d == b+2 || d == len(s) || s[d] != ')' {
			continue
		}
		out = append(out, []int{i, d + 1, i + 1, b, b + 2, d})
		i = d
	}
	return out
}

// replaceSpans is s with each of spans' matches (in order, not
// overlapping) replaced by f of the match's spans; s itself when there
// are none.
func replaceSpans(s string, spans [][]int, f func(m []int) string) string {
	if len(spans) == 0 {
		return s
	}
	var b []byte
	last := 0
	for _, m := range spans {
		b = append(b, s[last:m[0]]...)
		b = append(b, f(m)...)
		last = m[1]
	}
	return string(append(b, s[last:]...))
}
