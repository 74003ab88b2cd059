package index

import "testing"

// EscapeQuery keeps any id one literal term (an id with a space, a colon,
// a quote or a backslash), and LiteralWords keeps each word one term.
func TestEscapeQuery(t *testing.T) {
	for in, want := range map[string]string{"mem_0001": "mem_0001", "a-b:c d": `a\-b\:c\ d`, `x"y\`: `x\"y\\`} {
		if got := EscapeQuery(in); got != want {
			t.Errorf("EscapeQuery(%q) = %q, want %q", in, got, want)
		}
	}
	if got, want := LiteralWords(" stars:1  to+5 "), `stars\:1 to\+5`; got != want {
		t.Errorf("LiteralWords = %q, want %q", got, want)
	}
	if got, want := LiteralWords("join items_g1 / items_g3 // a/b"), `join items_g1 items_g3 a\/b`; got != want {
		t.Errorf("LiteralWords = %q, want %q", got, want)
	}
}
