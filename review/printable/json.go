package printable

import (
	"fmt"
	"unicode/utf8"
)

// JSON returns JSON text (as encoding/json writes it) with every unsafe
// rune escaped the JSON way, \u009b, instead of raw: the same JSON value,
// still valid JSON, that never reaches a terminal as a control character.
// (Text's \x9b would make it invalid JSON.) Outside strings JSON holds
// only ASCII punctuation, digits, letters and white space, so every
// unsafe rune is inside a string, where \uXXXX means that rune. A byte of
// invalid UTF-8 becomes \ufffd, as encoding/json makes one in a string.
func JSON(b []byte) []byte {
	safe := true
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x80 && (c >= 0x20 && c != 0x7f || c == '\n' || c == '\t') {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 || Unsafe(r) {
			safe = false
			break
		}
		i += n
	}
	if safe {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			out = append(out, `\ufffd`...)
		case r != '\n' && r != '\t' && Unsafe(r):
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}
