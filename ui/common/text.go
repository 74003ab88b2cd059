package common

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Text helpers for screens: wrap and cut ANSI-aware, by display width.
// Call them when content or width changes and cache the result; not in View.

// Wrap wraps s to width w (ANSI-aware), breaking long words.
func Wrap(s string, w int) string {
	if w <= 0 {
		return s
	}
	return ansi.Wrap(s, w, " -")
}

// Indent wraps s to width w behind lead: the first line starts with lead,
// the others with pad spaces (a hanging indent), and no line is wider than w
// (but for a lead that is wider by itself). A lead that leaves no room on
// its line for the text puts the text on the lines below it.
func Indent(lead, s string, w, pad int) string {
	lw := ansi.StringWidth(lead)
	if lw < pad {
		lead += strings.Repeat(" ", pad-lw)
		lw = pad
	}
	if lw-pad >= max(w-pad, 1) {
		return lead + "\n" + Indent("", s, w, pad)
	}
	// A filler glued to the first word reserves the lead's extra width on
	// the first line only; it is cut off again below.
	filler := strings.Repeat("x", lw-pad)
	body := Wrap(filler+s, max(w-pad, 1))
	lines := strings.Split(body, "\n")
	sp := strings.Repeat(" ", pad)
	for i := range lines {
		if i == 0 {
			lines[i] = lead + strings.TrimPrefix(lines[i], filler)
		} else {
			lines[i] = sp + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

// FitLine pads or cuts s to exactly width w.
func FitLine(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, "…")
		sw = ansi.StringWidth(s)
	}
	return s + strings.Repeat(" ", max(w-sw, 0))
}

// FitLines splits s into lines of exactly width w.
func FitLines(s string, w int) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = FitLine(l, w)
	}
	return lines
}

// Spread puts left at the start and right at the end of a line w wide,
// as the screens' status lines have them; when both do not fit with a
// space between, it cuts the line at w.
func Spread(left, right string, w int) string {
	gap := w - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		return ansi.Truncate(left+" "+right, w, "…")
	}
	return left + strings.Repeat(" ", gap) + right
}

// Printable makes text from outside (probe output, trajectory steps) safe
// to put on screen: a terminal would obey the escape sequences and control
// characters in it (colours, a new window title, a cleared screen) and
// widths would not add up. Tabs become four spaces, "\r\n" a newline, and
// every other control character but the newline a visible \xNN escape.
// Bidirectional controls (U+202E and its kin), which would reorder what
// follows them, become a visible \u escape; a zero-width joiner or an
// emoji variation selector is dropped, so an emoji sequence is drawn as
// the separate emoji it is measured as (a joined sequence is one glyph in
// some terminals and several in others, and would push a border). A run
// of Unicode tag characters (U+E0000–U+E007F: invisible, but a model
// reads them as text) is shown decoded, as [tags: "the hidden text"].
func Printable(s string) string {
	if !strings.ContainsFunc(s, isControl) && !strings.ContainsFunc(s, isInvisible) {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	tags := -1 // where the tag run being read starts in b; -1 outside one
	for _, r := range s {
		if IsTag(r) {
			if tags < 0 {
				b.WriteString(`[tags: "`)
				tags = b.Len()
			}
			if t := r - 0xe0000; t >= 0x20 && t < 0x7f && t != '"' && t != '\\' {
				b.WriteRune(t)
			} else if t >= 0x20 && t < 0x7f {
				b.WriteString(`\` + string(t))
			}
			continue
		}
		if tags >= 0 {
			b.WriteString(`"]`)
			tags = -1
		}
		switch {
		case r == '\n':
			b.WriteRune(r)
		case r == '\t':
			b.WriteString("    ")
		case isControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case IsBidi(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		case isInvisible(r): // ZWJ, VS16: dropped
		default:
			b.WriteRune(r)
		}
	}
	if tags >= 0 {
		b.WriteString(`"]`)
	}
	return b.String()
}

// IsTag reports whether r is a Unicode tag character (U+E0000–U+E007F),
// invisible text that a model still reads.
func IsTag(r rune) bool { return r >= 0xe0000 && r <= 0xe007f }

// PrintableLine is Printable for text that must stay on one line (a list
// row, a table cell): line breaks and tabs become single spaces first.
func PrintableLine(s string) string {
	return Printable(oneLineReplacer.Replace(s))
}

var oneLineReplacer = strings.NewReplacer("\r\n", " ", "\n", " ", "\t", " ")

// OneLine turns line breaks and tabs into single spaces (PrintableLine
// without the escaping).
func OneLine(s string) string { return oneLineReplacer.Replace(s) }

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// IsBidi reports whether r is a bidirectional formatting character: the
// marks, embeddings, overrides and isolates of Unicode's bidi algorithm.
func IsBidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// isInvisible: what Printable escapes or drops besides control characters.
func isInvisible(r rune) bool { return IsBidi(r) || r == 0x200d || r == 0xfe0f || IsTag(r) }

// StripBidi removes bidirectional formatting characters from a finished
// frame: the root's last guard, for text that reached a view without
// Printable. They have no width, so nothing moves.
func StripBidi(s string) string {
	if !hasBidi(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if IsBidi(r) {
			return -1
		}
		return r
	}, s)
}

// hasBidi is strings.ContainsFunc(s, IsBidi) by bytes, several times
// quicker on a frame (it runs on every one): it compares the UTF-8 of each
// bidi character, D8 9C (U+061C), E2 80 8E–8F, E2 80 AA–AE and E2 81 A6–A9,
// without decoding runes. None of those lead bytes is a continuation byte,
// so a match is where a rune by rune search would find the character.
func hasBidi(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		switch s[i] {
		case 0xD8:
			if s[i+1] == 0x9C {
				return true
			}
		case 0xE2:
			if i+2 >= len(s) {
				return false
			}
			c, d := s[i+1], s[i+2]
			if c == 0x80 && (d == 0x8E || d == 0x8F || d >= 0xAA && d <= 0xAE) || c == 0x81 && d >= 0xA6 && d <= 0xA9 {
				return true
			}
		}
	}
	return false
}

// MarkLines marks every line of s as selected or cited (on): a bar, visible
// without colour, in the Marked style; other lines get a space, so marked
// and unmarked text line up.
func (st *Styles) MarkLines(s string, on bool) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if on {
			lines[i] = st.Marked.Render("▌" + l)
		} else {
			lines[i] = " " + l
		}
	}
	return strings.Join(lines, "\n")
}

// NaturalCompare orders strings with their runs of digits compared as
// numbers: task2 before task10.
func NaturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// ShortID shortens a long id to its last n cells, behind "…", keeping the
// part that tells ids apart (tau-bench-gpt-4o-airline-task0-trial0 →
// …airline-task0-trial0).
func ShortID(id string, n int) string {
	if ansi.StringWidth(id) <= n {
		return id
	}
	r := []rune(id)
	return "…" + string(r[max(len(r)-n+1, 0):])
}

// ReadableJSON re-encodes a JSON value compactly without the HTML escapes
// encoders add (\u003c for <, \u0026 for &), so tool arguments read as
// the model wrote them (numbers exact, object keys sorted); text that is
// not one JSON value is returned as it is.
func ReadableJSON(s string) string {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || d.More() {
		return s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return s
	}
	return strings.TrimSuffix(b.String(), "\n")
}
