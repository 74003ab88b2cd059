package hygiene

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/memreview/memreview/index"
)

// claim is what a lemma says a value is: a storage unit ("stored as
// integer cents"), a range ("ranges from 0 to 500") or a new name
// ("renamed to item_ref"), as analysed terms.
type claim struct {
	kind  string // "unit", "range", "name"
	text  string // the words as written
	terms []string
}

// claimPatterns find claims in a lemma; the first group is the value.
var claimPatterns = []struct {
	kind  string
	re    *regexp.Regexp
	needs string // a word every match holds (any case; lower-case ASCII letters none of which another letter folds to)
}{
	{"unit", regexp.MustCompile(`(?i)\b(?:(?:is|are)\s+(?:stored\s+|kept\s+|given\s+)?in|(?:stored|kept|recorded|held|expressed|given|reported)\s+(?:as|in)|holds?|stores?\s+[\w.]+\s+(?:as|on))\s+([^;,:—()]+?)(?:[;,:—()]|\.(?:\s|$)|$)`), ""},
	{"range", regexp.MustCompile(`(?i)\branges?\s+(from\s+\d+\s+to\s+\d+)`), "range"},
	{"name", regexp.MustCompile(`(?i)\brenamed\s+to\s+([\w.]+)`), "renamed"},
}

// containsFoldASCII reports whether s holds sub (lower-case ASCII) in any
// ASCII case. For a sub with none of k and s (which the Kelvin sign and
// the long s fold to under (?i)) that is every way (?i) can match it.
func containsFoldASCII(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		k := 0
		for k < len(sub) && s[i+k]|0x20 == sub[k] {
			k++
		}
		if k == len(sub) {
			return true
		}
	}
	return false
}

// claimStop cuts a unit claim where the value ends and the sentence goes on.
var claimStop = regexp.MustCompile(`(?i)\s(?:in|for|per|one|with|when|before|after|and|unlike|not|so|that|which)\s.*$`)

// claimsOf returns the claims of a lemma.
func claimsOf(lemma string) []claim {
	var out []claim
	for _, p := range claimPatterns {
		if p.needs != "" && !containsFoldASCII(lemma, p.needs) {
			continue // cannot match: the regexp is most of the cost
		}
		var spans [][]int
		if p.kind == "unit" && Scanners && isASCII(lemma) {
			spans = unitClaimSpans(lemma) // the regexp's matches, without it (scan.go)
		} else {
			spans = p.re.FindAllStringSubmatchIndex(lemma, -1)
		}
		for _, m := range spans {
			v := strings.TrimSpace(lemma[m[2]:m[3]])
			if p.kind == "unit" {
				v = strings.TrimSpace(claimStop.ReplaceAllString(" "+v+" ", ""))
				if w := strings.Fields(v); len(w) > 4 {
					v = strings.Join(w[:4], " ")
				}
			}
			ts := index.Terms(v)
			if len(ts) == 0 {
				continue
			}
			out = append(out, claim{kind: p.kind, text: v, terms: ts})
		}
	}
	return out
}

// conflict returns the first pair of claims of one kind on which a and b
// disagree: neither's terms contain the other's ("integer cents" and
// "cents" agree; "cents" and "dollars", "from 1 to 5" and "from 1 to 10"
// do not).
func conflict(a, b []claim) ([2]claim, bool) {
	for _, x := range a {
		for _, y := range b {
			if x.kind == y.kind && !subset(x.terms, y.terms) && !subset(y.terms, x.terms) {
				return [2]claim{x, y}, true
			}
		}
	}
	return [2]claim{}, false
}

func subset(a, b []string) bool {
	for _, t := range a {
		if !contains(b, t) {
			return false
		}
	}
	return true
}

// identifiers returns a record's identifier-like words in order of first
// appearance: names with an underscore (tables, columns) and the dotted
// parts of each, file names (headcount.csv), codes in capitals (EDI), and
// numbers (100.0 counts as 100).
func identifiers(s string) []string {
	// The identifiers are substrings of s, which the record holds anyway,
	// unless commute rewrote it: then each is copied, so that a million
	// records' identifiers do not hold a million rewritten lemmas.
	c := commute(s)
	rewritten := c != s
	if !rewritten {
		c = s // commute may return a copy
	}
	add := func(out []string, w string) []string {
		if contains(out, w) {
			return out
		}
		if rewritten {
			w = strings.Clone(w)
		}
		return append(out, w)
	}
	var out []string
	// The words are ASCII (letters, digits, '_', '.', '/'): a code in
	// capitals has an upper-case letter and no lower-case one (what
	// ToUpper(w) == w && ToLower(w) != w says of ASCII), and only a word
	// with '_' or '.' is lower-cased (the copy ToLower makes).
	for w := range strings.FieldsFuncSeq(c, func(r rune) bool {
		return !(r == '_' || r == '.' || r == '/' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		w = strings.Trim(w, "./")
		if n, ok := number(w); ok {
			out = appendNew(out, strconv.FormatFloat(n, 'f', -1, 64))
			continue
		}
		upper, lower := asciiCases(w)
		if len(w) >= 2 && upper && !lower {
			out = add(out, w)
			continue
		}
		if !strings.ContainsAny(w, "_.") {
			continue
		}
		w = strings.ToLower(w)
		out = add(out, w)
		for _, part := range strings.Split(w, ".") {
			if strings.Contains(part, "_") {
				out = add(out, part)
			}
		}
	}
	return out
}

// asciiCases reports whether w holds an upper-case and a lower-case
// ASCII letter.
func asciiCases(w string) (upper, lower bool) {
	for i := 0; i < len(w); i++ {
		c := w[i]
		upper = upper || c >= 'A' && c <= 'Z'
		lower = lower || c >= 'a' && c <= 'z'
	}
	return upper, lower
}

// number parses w as strconv.ParseFloat does, without the error a word
// that is no number costs (most words are not): only a word that begins
// as a number can be one (a digit, a point, a sign, or the i and n of
// "inf" and "nan").
func number(w string) (float64, bool) {
	if w == "" {
		return 0, false
	}
	switch c := w[0]; {
	case c >= '0' && c <= '9', c == '.', c == '+', c == '-', c == 'i', c == 'I', c == 'n', c == 'N':
	default:
		return 0, false
	}
	n, err := strconv.ParseFloat(w, 64)
	return n, err == nil
}

// sameSubject: the identifiers of the record with fewer all appear in the
// other's in the same order ("a lags b" is not "b lags a"), or, when !all,
// at least half of them appear in any order.
func sameSubject(a, b []string, all bool) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(a) == 0 {
		return false
	}
	// Shared identifiers keep their order, and at least half of the
	// smaller record's are shared.
	shared, last := 0, -1
	for _, x := range a {
		k := indexOf(b, x)
		if k < 0 {
			continue
		}
		if all && k < last {
			return false
		}
		last = k
		shared++
	}
	if all {
		return shared == len(a)
	}
	return shared > 0 && 2*shared >= len(a)
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

func appendNew(xs []string, x string) []string {
	if contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

// Names joined by a symmetric word commute: "a and b", "a joins b", "a =
// b", a parenthesised list "(a, b)". commute writes each such pair in one
// order, so that the order rule of sameSubject ("a lags b" is not "b lags
// a") does not part "a and b" from "b and a".
var (
	commutePair = regexp.MustCompile(`([\w./]+) (and|joins|=) ([\w./]+)`)
	commuteList = regexp.MustCompile(`\(([^(),]+), ([^(),]+)\)`)
)

func commute(s string) string {
	if Scanners { // the regexps' matches, without them (scan.go)
		s = replaceSpans(s, commutePairSpans(s), func(m []int) string {
			if a, b := s[m[2]:m[3]], s[m[6]:m[7]]; b < a {
				return b + " " + s[m[4]:m[5]] + " " + a
			}
			return s[m[0]:m[1]]
		})
		return replaceSpans(s, commuteListSpans(s), func(m []int) string {
			if a, b := s[m[2]:m[3]], s[m[4]:m[5]]; b < a {
				return "(" + b + ", " + a + ")"
			}
			return s[m[0]:m[1]]
		})
	}
	if strings.Contains(s, " and ") || strings.Contains(s, " joins ") || strings.Contains(s, " = ") {
		s = commutePair.ReplaceAllStringFunc(s, func(m string) string {
			p := commutePair.FindStringSubmatch(m)
			if p[3] < p[1] {
				return p[3] + " " + p[2] + " " + p[1]
			}
			return m
		})
	}
	if !strings.Contains(s, ", ") || !strings.Contains(s, "(") {
		return s
	}
	return commuteList.ReplaceAllStringFunc(s, func(m string) string {
		p := commuteList.FindStringSubmatch(m)
		if p[2] < p[1] {
			return "(" + p[2] + ", " + p[1] + ")"
		}
		return m
	})
}
