package printable

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzText: whatever the input, Text and Line give valid UTF-8 with no
// rune a terminal would obey (Unsafe), Line keeps to one line, safe text
// comes back unchanged, and the Writer writes what Text gives.
func FuzzText(f *testing.F) {
	for _, s := range []string{"", "plain", "a\nb\tc", "\x1b[2J\x1b]0;title\a", "\u202eevil", "\xff\xfe", "\x9b31m", "é\u200f\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, out := range map[string]string{"Text": Text(s), "Line": Line(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("%s(%q) = %q: not valid UTF-8", name, s, out)
			}
			for _, r := range out {
				if Unsafe(r) {
					t.Fatalf("%s(%q) = %q holds %U", name, s, out, r)
				}
			}
		}
		if strings.ContainsAny(Line(s), "\n\t") {
			t.Fatalf("Line(%q) = %q is not one line", s, Line(s))
		}
		if safe := utf8.ValidString(s) && !strings.ContainsFunc(s, Unsafe); safe && Text(s) != s {
			t.Fatalf("Text changed safe text %q to %q", s, Text(s))
		}
		var b bytes.Buffer
		w := NewWriter(&b)
		if _, err := w.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != Text(s) {
			t.Fatalf("the Writer wrote %q for %q, which Text gives as %q", got, s, Text(s))
		}
	})
}
