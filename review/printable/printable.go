// Package printable makes text from outside memreview (imported records,
// curator-written lemmas, probe output, trajectory steps) safe to show on a
// terminal. A terminal obeys the control characters in what it is sent: an
// ESC sequence in a lemma could clear the screen, set the window title or
// write the clipboard, and a bidi override would show text reversed. This
// package owns the one rule for what is unsafe and how it is shown: as a
// visible escape (\x1b, \u202e), never raw.
package printable

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Unsafe reports whether r must not reach a terminal raw: the C0 controls
// (below U+0020) except newline and tab, DEL, the C1 controls
// (U+0080–U+009F), and the bidi controls that reorder text (U+061C,
// U+200E, U+200F, U+202A–U+202E, U+2066–U+2069). utf8.RuneError from
// invalid UTF-8 is unsafe too: a lone byte 0x9b is a CSI to some terminals.
func Unsafe(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
		return true
	}
	return IsBidi(r)
}

// IsBidi reports whether r is a bidirectional formatting control.
func IsBidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// Escape is how an unsafe rune is shown: \xNN below U+0100, \uNNNN above.
func Escape(r rune) string {
	if r < 0x100 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// Text returns s with every unsafe rune (and every byte of invalid UTF-8)
// escaped; newlines and tabs are kept. s is returned as is when it is
// already safe.
func Text(s string) string {
	if isSafe(s) {
		return s
	}
	var b strings.Builder
	write(&b, s, false)
	return b.String()
}

// Line is Text for text that must stay on one line (a table cell, a list
// row): newlines and tabs are escaped too, as \n and \t.
func Line(s string) string {
	if isSafe(s) && !strings.ContainsAny(s, "\n\t") {
		return s
	}
	var b strings.Builder
	write(&b, s, true)
	return b.String()
}

func isSafe(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || Unsafe(r) {
			return false
		}
		i += n
	}
	return true
}

func write(b *strings.Builder, s string, oneLine bool) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(b, `\x%02x`, s[i])
		case oneLine && r == '\n':
			b.WriteString(`\n`)
		case oneLine && r == '\t':
			b.WriteString(`\t`)
		case Unsafe(r):
			b.WriteString(Escape(r))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
}
