package index

import "strings"

// queryMeta is every character Bleve's query-string syntax gives meaning
// to, space included.
const queryMeta = `+-=&|><!(){}[]^"~*?:\/ `

// EscapeQuery escapes the characters Bleve's query-string syntax gives
// meaning to, so that s is searched as one literal term: "id:" +
// EscapeQuery(id) finds exactly that id, and a model's stray colon or
// quote cannot break a query built from its words.
func EscapeQuery(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(queryMeta, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// LiteralWords turns free text into a query of its words, each escaped
// with EscapeQuery: what the text says, never query syntax.
func LiteralWords(s string) string {
	f := strings.Fields(s)
	for i, w := range f {
		f[i] = EscapeQuery(w)
	}
	return strings.Join(f, " ")
}
