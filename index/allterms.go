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
// default now); a query that says OR anywhere is left as typed (its
// white space made spaces), so OR still means any of them. A term said twice is kept once: every copy
// was another searcher over the same postings (a word repeated 4,000
// times took seconds), and the query matches the same records. A token
// of slashes alone (`a / b`) is dropped: it names no term (noTerm). A
// lone + or - goes onto the term after it, as Bleve reads `- join`; one
// with no term after it is dropped. A boost, fuzziness or colon after a
// space (`a ^2`, `a ~1`) stays with the term before it.
func RequireAll(q string) string {
	toks := splitQuery(q)
	for _, t := range toks {
		if t == "OR" || t == "||" {
			return strings.Join(toks, " ") // as typed, its white space spaces
		}
	}
	out := toks[:0]
	seen := map[string]bool{}
	op := ""     // a lone + or -, which Bleve puts before the next term
	kept := true // the token before was kept (not a copy, a slash or AND dropped)
	for _, t := range toks {
		switch {
		case t == "AND" || t == "&&", noTerm(t):
			kept = false
			continue
		case op == "" && strings.ContainsAny(t[:1], "^~:"):
			// A boost or fuzziness after a space modifies the term before
			// it, as Bleve reads `a ^2` and `a ~1` (and `"" :0` as the
			// field "" with the value 0): it stays unmarked after that
			// term (`+a ^2`), and goes with it when the token before was
			// dropped (a copy, a slash).
			if kept && len(out) > 0 {
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

// splitQuery splits q into the clauses Bleve's query-string lexer reads:
// at white space outside a phrase (a backslash escapes the next
// character), and after a phrase that another clause follows at once
// (`""+ x` is the phrase "" and then +x). A double quote opens a phrase
// only where a clause starts (after +, -, :, >, <, = too); inside a term
// or a boost it is a character (`0"^2`). White space is what
// unicode.IsSpace says, as between Bleve's tokens, and becomes a space
// within a clause too, since Bleve ends a term or a boost only at a
// space: a lone carriage return left in a token became `+\r`, which
// Bleve reads as a bare + and refuses. White space after a colon or a
// comparison is skipped, as Bleve skips it to the value.
func splitQuery(q string) []string {
	const (
		start  = iota // where a clause or a field's value starts
		term          // in a term (or a number)
		mod           // in a boost or fuzziness, which only a space ends
		phrase        // in a quoted phrase
		closed        // just after a phrase's closing quote
	)
	var toks []string
	var b strings.Builder
	end := func() {
		if b.Len() > 0 {
			toks = append(toks, b.String())
			b.Reset()
		}
	}
	state, escaped := start, false
	valueNext := false // the clause's last character was a colon or a comparison
	for _, r := range q {
		if unicode.IsSpace(r) {
			r = ' '
		}
		if escaped {
			escaped, valueNext = false, false
			b.WriteRune(r)
			if state == start || state == closed {
				state = term
			}
			continue
		}
		if state == closed {
			switch r {
			case ':', '^', '~', ' ':
				// the phrase's field separator, boost or fuzziness, or
				// the clause's end: read below
			default:
				end() // another clause starts right after the phrase
			}
			state = start
		}
		switch {
		case r == '\\':
			escaped = true
		case state == phrase:
			if r == '"' {
				state = closed
			}
		case r == ' ' && valueNext:
			// after a field's colon or a comparison Bleve skips white
			// space to the value (`"": 0`): the value is this clause's
			continue
		case r == ' ':
			end()
			state = start
			continue
		case state == mod:
		case r == '^' || r == '~':
			state = mod
		case state == start && r == '"':
			state = phrase
		case state == start && strings.ContainsRune("+-:><=", r):
		case r == ':':
			state = start // a field's value follows
		default:
			state = term
		}
		valueNext = state == start && strings.ContainsRune(":><=", r)
		b.WriteRune(r)
	}
	end()
	return toks
}
