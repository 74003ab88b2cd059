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
// A word that is only slashes is left out (it holds no term, and
// Bleve's parser fails on it: noTerm).
func LiteralWords(s string) string {
	var f []string
	for _, w := range strings.Fields(s) {
		if !noTerm(w) {
			f = append(f, EscapeQuery(w))
		}
	}
	return strings.Join(f, " ")
}

// noTerm reports whether a query token is only slashes and backslashes
// after its + or - (`/`, `+/`, `\/`, `\`): the analyser makes no term of
// it, and Bleve's query-string parser fails on it ("slice bounds out of
// range" for a slash; a lone backslash once + is put before it) instead
// of matching nothing, so `a / b` or `a \` could not be searched.
func noTerm(tok string) bool {
	tok = strings.TrimLeft(tok, "+-")
	return tok != "" && strings.Trim(tok, `/\`) == ""
}
