package index

import (
	"strings"
	"unicode"
)

// RequireAll rewrites a query-string query so that every term, phrase and
// field:value must match (AND), the default of the TUI's search boxes and
// meant for `memreview search` too: `env:shop stars` becomes
// `+env:shop +stars`. Bleve's own default is any term (OR). A term already
// marked + or - is kept as it is; AND between terms is dropped (it is the
// default now); a query that says OR anywhere is left untouched, so OR
// still means any of them. A term said twice is kept once: every copy
// was another searcher over the same postings (a word repeated 4,000
// times took seconds), and the query matches the same records. A token
// of slashes alone (`a / b`) is dropped: it names no term (noTerm). A
// lone + or - goes onto the term after it, as Bleve reads `- join`; one
// with no term after it is dropped. A lone boost or fuzziness (`a ^2`,
// `a ~1`) stays with the term before it.
func RequireAll(q string) string {
	toks := splitQuery(q)
	for _, t := range toks {
		if t == "OR" || t == "||" {
			return q
		}
	}
	out := toks[:0]
	seen := map[string]bool{}
	op := ""     // a lone + or -, which Bleve puts before the next term
	kept := true // the term before was kept (not a copy dropped)
	for _, t := range toks {
		switch {
		case t == "AND" || t == "&&", noTerm(t):
			continue
		case op == "" && (strings.HasPrefix(t, "^") || strings.HasPrefix(t, "~")) && len(out) > 0:
			// A boost or fuzziness after a space modifies the term before
			// it, as Bleve reads `a ^2` and `a ~1`: it stays unmarked
			// after that term (`+a ^2`), and goes with it when the term
			// was a copy dropped.
			if kept {
				out = append(out, t)
			}
			continue
		case t == "+" || t == "-":
			op = t
			continue
		case !strings.HasPrefix(t, "+") && !strings.HasPrefix(t, "-"):
			if op == "" {
				op = "+"
			}
			t = op + t
		}
		op = ""
		kept = !seen[t]
		if kept {
			seen[t] = true
			out = append(out, t)
		}
	}
	return strings.Join(out, " ")
}

// splitQuery splits q at white space outside double quotes (a backslash
// escapes the next character). White space is what unicode.IsSpace says,
// as between Bleve's tokens: a lone carriage return or no-break space left
// in a token became `+\r`, which Bleve reads as a bare + and refuses.
func splitQuery(q string) []string {
	var toks []string
	var b strings.Builder
	quoted, escaped := false, false
	for _, r := range q {
		switch {
		case escaped:
			escaped = false
		case r == '\\':
			escaped = true
		case r == '"':
			quoted = !quoted
		case !quoted && unicode.IsSpace(r):
			if b.Len() > 0 {
				toks = append(toks, b.String())
				b.Reset()
			}
			continue
		}
		b.WriteRune(r)
	}
	if b.Len() > 0 {
		toks = append(toks, b.String())
	}
	return toks
}
