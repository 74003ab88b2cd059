package printable

import (
	"io"
	"strings"
	"unicode/utf8"
)

// Writer passes what is written to it on to an underlying writer with
// every unsafe rune escaped (as Text does). A UTF-8 sequence split across
// two Writes is held until it is complete; Flush writes out (escaped) what
// is held when the output ends in the middle of one.
type Writer struct {
	w       io.Writer
	pending []byte // the start of an incomplete UTF-8 sequence
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p and writes it; it reports len(p) on success.
func (w *Writer) Write(p []byte) (int, error) {
	data := p
	if len(w.pending) > 0 {
		data = append(w.pending, p...)
		w.pending = nil
	}
	// Hold back a trailing incomplete (but possibly valid) sequence.
	keep := 0
	for k := 1; k <= utf8.UTFMax-1 && k <= len(data); k++ {
		c := data[len(data)-k]
		if c < 0x80 {
			break
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(data[len(data)-k:]) {
				keep = k
			}
			break
		}
	}
	out := string(data[:len(data)-keep])
	if keep > 0 {
		w.pending = append([]byte(nil), data[len(data)-keep:]...)
	}
	if out != "" {
		if _, err := io.WriteString(w.w, Text(out)); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes out what is held of an incomplete UTF-8 sequence, escaped.
func (w *Writer) Flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	var b strings.Builder
	write(&b, string(w.pending), false)
	w.pending = nil
	_, err := io.WriteString(w.w, b.String())
	return err
}
