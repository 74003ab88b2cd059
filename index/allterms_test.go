package index

import (
	"strings"
	"testing"
)

func TestRequireAll(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"env:shop stars", "+env:shop +stars"},
		{`stars "1 to 5"`, `+stars +"1 to 5"`},
		{`lemma:"stars are" -retired +env:shop`, `+lemma:"stars are" -retired +env:shop`},
		{"stars AND ratings", "+stars +ratings"},
		{"stars OR ratings", "stars OR ratings"},
		{`id:mem\ 1 x`, `+id:mem\ 1 +x`},
		{"  spaced   out  ", "+spaced +out"},
		// A term said again is one searcher, not two (issue 23 item 19).
		{"stars +stars stars ratings -x -x", "+stars +ratings -x"},
		{strings.Repeat("stars ", 4000), "+stars"},
		// A slash alone names no term; bleve's parser failed on it.
		{`items_g1 / items_g3. +/ \/ a/b`, `+items_g1 +items_g3. +a/b`},
		// So does a lone backslash, which + made a parse error.
		{`a b \`, `+a +b`},
		// Any white space parts terms: a lone carriage return or no-break
		// space became "+\r", a parse error (FuzzRequireAll).
		{"join \r orders\u00a0refunds\r\n", "+join +orders +refunds"},
		// A lone + or - goes onto the next term, as Bleve reads it; "+ x"
		// became "+ +x", a parse error.
		{"- join + orders x -", "-join +orders +x"},
		// A boost or fuzziness after a space is the term before's, as
		// Bleve reads it; "0 ^" became "+0 +^", a parse error
		// (FuzzRequireAll). It goes with a copy dropped.
		{"0 ^", "+0 ^"},
		{"stars ^2 ratings ~1", "+stars ^2 +ratings ~1"},
		{"stars ratings stars ^3", "+stars +ratings"},
		{`"" :0 x`, `+"" :0 +x`},
		{`a \\ ^2 b`, `+a +b`},
		// Clauses as Bleve's lexer reads them (FuzzRequireAll): a phrase
		// ends its clause at the closing quote; a quote inside a term is
		// a character; white space after a colon or a comparison comes
		// before the value; OR leaves the query as typed, its white
		// space spaces.
		{`""+ 0`, `+"" +0`},
		{"0\"^2\f x", "+0\"^2 +x"},
		{`"": 0 stars:> 3`, `+"":0 +stars:>3`},
		{"a ||\r b", "a || b"},
	} {
		if got := RequireAll(c.in); got != c.want {
			t.Errorf("RequireAll(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
