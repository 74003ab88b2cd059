package tail

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
)

// pred is the tail's prefilter: given an item's lower-cased values
// (tailItem.text), false means the item cannot match the query. It may
// keep items that do not match (the in-memory index decides), but never
// drops one that does: nil keeps everything.
type pred func(text string) bool

// prefilter builds the pred of a parsed query: the words a match must
// contain, tested as substrings of the item's text. A term in the index
// is the English stem of a word (or a keyword's lower-cased value), and a
// stem is not always a substring of the words it stems ("happy" is
// indexed as "happi"), but its first len-2 characters are (stemPrefix):
// so an item whose text lacks that prefix has no word with that stem.
// Clauses it cannot test this way (ranges, fuzzy and regexp terms,
// exclusions) keep every item.
func prefilter(m mapping.IndexMapping, q query.Query) pred {
	switch t := q.(type) {
	case *query.BooleanQuery:
		var all []pred
		if t.Must != nil {
			all = append(all, prefilter(m, t.Must))
		}
		if t.Filter != nil {
			all = append(all, prefilter(m, t.Filter))
		}
		if t.Must == nil && t.Filter == nil && t.Should != nil {
			all = append(all, prefilter(m, t.Should))
		}
		return allOf(all)
	case *query.ConjunctionQuery:
		var all []pred
		for _, c := range t.Conjuncts {
			all = append(all, prefilter(m, c))
		}
		return allOf(all)
	case *query.DisjunctionQuery:
		var any []pred
		for _, d := range t.Disjuncts {
			p := prefilter(m, d)
			if p == nil {
				return nil // one clause keeps everything
			}
			any = append(any, p)
		}
		return anyOf(any)
	case *query.MatchQuery:
		if t.Fuzziness != 0 { // query strings give fuzziness as a number ("jion~1")
			return nil
		}
		words := analyze(m, t.FieldVal, t.Match)
		if t.Operator == query.MatchQueryOperatorAnd {
			return containsAll(words)
		}
		return containsAny(words)
	case *query.MatchPhraseQuery:
		if t.Fuzziness != 0 { // query strings give fuzziness as a number ("jion~1")
			return nil
		}
		return containsAll(analyze(m, t.FieldVal, t.MatchPhrase))
	case *query.PhraseQuery:
		if t.Fuzziness != 0 { // query strings give fuzziness as a number ("jion~1")
			return nil
		}
		return containsAll(prefixes(t.Terms))
	case *query.TermQuery:
		return containsAll(prefixes([]string{t.Term}))
	case *query.PrefixQuery:
		return containsAll(prefixes([]string{t.Prefix}))
	case *query.WildcardQuery:
		lit, _, _ := strings.Cut(t.Wildcard, "*")
		lit, _, _ = strings.Cut(lit, "?")
		return containsAll(prefixes([]string{lit}))
	}
	return nil
}

// analyze returns the stemPrefix of each term field's analyzer makes of
// text (the default field's when field is ""), as a query on it would.
func analyze(m mapping.IndexMapping, field, text string) []string {
	if field == "" {
		field = m.DefaultSearchField()
	}
	a := m.AnalyzerNamed(m.AnalyzerNameForPath(field))
	if a == nil {
		return nil
	}
	var terms []string
	for _, tok := range a.Analyze([]byte(text)) {
		terms = append(terms, string(tok.Term))
	}
	return prefixes(terms)
}

// prefixes returns the stemPrefix of each term, lower-cased, without
// empty ones.
func prefixes(terms []string) []string {
	var out []string
	for _, t := range terms {
		if p := stemPrefix(strings.ToLower(t)); p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// stemPrefix is the part of a term that every word indexed as it
// contains: all but its last two characters (the English stemmer rewrites
// at most the end of a word: "happy" → "happi", "hoping" → "hope",
// "possibly" → "possibl"), and at least its first.
func stemPrefix(term string) string {
	n := utf8.RuneCountInString(term)
	keep := max(n-2, min(n, 1))
	i := 0
	for k := 0; k < keep; k++ {
		_, w := utf8.DecodeRuneInString(term[i:])
		i += w
	}
	return term[:i]
}

func containsAll(words []string) pred {
	if len(words) == 0 {
		return nil
	}
	return func(text string) bool {
		for _, w := range words {
			if !strings.Contains(text, w) {
				return false
			}
		}
		return true
	}
}

func containsAny(words []string) pred {
	if len(words) == 0 {
		return nil
	}
	return func(text string) bool {
		for _, w := range words {
			if strings.Contains(text, w) {
				return true
			}
		}
		return false
	}
}

func allOf(ps []pred) pred {
	ps = slices.DeleteFunc(ps, func(p pred) bool { return p == nil })
	switch len(ps) {
	case 0:
		return nil
	case 1:
		return ps[0]
	}
	return func(text string) bool {
		for _, p := range ps {
			if !p(text) {
				return false
			}
		}
		return true
	}
}

func anyOf(ps []pred) pred {
	if len(ps) == 0 {
		return nil
	}
	return func(text string) bool {
		for _, p := range ps {
			if p(text) {
				return true
			}
		}
		return false
	}
}
