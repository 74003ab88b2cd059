package printable

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostile holds every class of unsafe input: C0, ESC sequences (clear,
// title, clipboard), DEL, C1 (as UTF-8 and as a raw byte), bidi
// overrides and invalid UTF-8, between ordinary text with newlines, tabs
// and multi-byte runes.
const hostile = "ok ü 日本 \x1b[2J\x1b[H\x1b]52;c;aGk=\a\x1b]0;title\a\r\b\x00\x7f \u009b31m \u202eevil\u202c \u2066x\u2069 \u200f \xff\x9b tab\there\nnext"

func unsafeBytes(s string) []string {
	var bad []string
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || Unsafe(r) {
			bad = append(bad, s[i:i+n])
		}
		i += n
	}
	return bad
}

func TestTextEscapesEveryUnsafeRune(t *testing.T) {
	for r := rune(0); r < 0x3000; r++ {
		s := "a" + string(r) + "b"
		got := Text(s)
		if bad := unsafeBytes(got); len(bad) > 0 {
			t.Fatalf("Text(%q) = %q still holds %q", s, got, bad)
		}
		if !Unsafe(r) && got != s {
			t.Fatalf("Text(%q) = %q changed a safe rune", s, got)
		}
	}
	got := Text(hostile)
	if bad := unsafeBytes(got); len(bad) > 0 {
		t.Fatalf("Text left %q in %q", bad, got)
	}
	for _, want := range []string{`\x1b[2J`, `\x07`, `\x7f`, `\x9b31m`, `\u202eevil`, `\xff\x9b`, "tab\there\nnext", "ü 日本"} {
		if !strings.Contains(got, want) {
			t.Errorf("Text(hostile) = %q, want it to hold %q", got, want)
		}
	}
	if l := Line(hostile); strings.ContainsAny(l, "\n\t") || !strings.Contains(l, `tab\there\nnext`) {
		t.Errorf("Line kept a line break or tab: %q", l)
	}
	if s := "plain text, ü\n\tend"; Text(s) != s {
		t.Errorf("Text changed safe text")
	}
}

// TestWriterMatchesTextAtEverySplit writes hostile text in two pieces cut
// at every byte: the output is always Text of the whole.
func TestWriterMatchesTextAtEverySplit(t *testing.T) {
	want := Text(hostile)
	for cut := 0; cut <= len(hostile); cut++ {
		var b bytes.Buffer
		w := NewWriter(&b)
		for _, part := range []string{hostile[:cut], hostile[cut:]} {
			if n, err := w.Write([]byte(part)); err != nil || n != len(part) {
				t.Fatalf("Write = %d, %v", n, err)
			}
		}
		w.Flush()
		if b.String() != want {
			t.Fatalf("cut at %d: %q, want %q", cut, b.String(), want)
		}
	}
	// An output that ends inside a sequence is escaped at Flush.
	var b bytes.Buffer
	w := NewWriter(&b)
	w.Write([]byte("x\xe2\x80"))
	if b.String() != "x" {
		t.Fatalf("before Flush: %q", b.String())
	}
	w.Flush()
	if b.String() != `x\xe2\x80` {
		t.Fatalf("after Flush: %q", b.String())
	}
}
