package embed

import (
	"strings"
	"unicode"

	porter "github.com/blevesearch/go-porterstemmer"
)

// Tokens splits text into the terms the offline embedder counts:
//
//   - words, lower-cased; English (ASCII) words of four letters or more
//     stemmed (Porter: "reviews", "reviewed" → "review"); common English
//     function words dropped;
//   - an identifier gives its parts and its compounds: "fdbk_g2.ref_id"
//     gives fdbk, g2, ref, id, fdbk_g2 and ref_id; "itemId" gives item, id
//     and itemid;
//   - text of scripts written without spaces (Han, Hiragana, Katakana,
//     Thai, Lao, Khmer, Myanmar) gives each character and each pair of
//     neighbours; other scripts (Cyrillic, Greek, Arabic, …) give words.
//
// Anything else (punctuation, symbols, control characters) separates.
func Tokens(text string) []string {
	var out []string
	rs := []rune(text)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unspaced(r):
			j := i
			for j < len(rs) && unspaced(rs[j]) {
				j++
			}
			for k := i; k < j; k++ {
				out = append(out, string(unicode.ToLower(rs[k])))
				if k+1 < j {
					out = append(out, string([]rune{unicode.ToLower(rs[k]), unicode.ToLower(rs[k+1])}))
				}
			}
			i = j
		case wordRune(r):
			j := i
			for j < len(rs) && (wordRune(rs[j]) || rs[j] == '.' && j+1 < len(rs) && wordRune(rs[j+1]) && j > i) {
				j++
			}
			out = identifier(out, rs[i:j])
			i = j
		default:
			i++
		}
	}
	return out
}

func wordRune(r rune) bool {
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || unicode.Is(unicode.Mn, r)) && !unspaced(r)
}

func unspaced(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar)
}

// identifier appends the terms of one run of word characters and dots.
func identifier(out []string, rs []rune) []string {
	pieces := strings.Split(string(rs), ".")
	for _, p := range pieces {
		parts := splitParts(p)
		if len(parts) == 1 {
			if w := word(parts[0]); w != "" {
				out = append(out, w)
			}
			continue
		}
		for _, part := range parts {
			if w := word(part); w != "" {
				out = append(out, w)
			}
		}
		if c := strings.ToLower(strings.Trim(p, "_")); c != "" {
			out = append(out, c)
		}
	}
	if len(pieces) > 1 {
		// The whole dotted name too, so "fdbk_g2.ref_id" matches itself.
		out = append(out, strings.ToLower(string(rs)))
	}
	return out
}

// splitParts splits on underscores and at lower→upper case changes.
func splitParts(s string) []string {
	var parts []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			parts = append(parts, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		if r == '_' {
			flush()
			continue
		}
		if i > 0 && unicode.IsUpper(r) && unicode.IsLower(rs[i-1]) {
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return parts
}

// word is the term of one plain word: lower-cased, stemmed when English,
// "" when it is a stop word or a single digit.
func word(w string) string {
	w = strings.ToLower(w)
	if stop[w] || len(w) == 1 && w[0] >= '0' && w[0] <= '9' {
		return ""
	}
	if len(w) >= 4 && ascii(w) {
		return porter.StemString(w)
	}
	return w
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

var stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but if then else of to in on at by for from with
		without as is are was were be been being it its this that these those there here
		than so such not no do does did has have had can could should would will may might
		must into onto over under about per each every any all some one two which who whom
		what when where why how their them they we you your our us he she his her i me my`) {
		stop[w] = true
	}
}
