package formats

// JSON Lines interchange: the shared plumbing of the readers (line reading
// with a cap, UTF-8 checks, strict decoding, error positions) and the writer.
// Formats are documented in docs/FORMATS.md.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// InputError says where an import input is wrong: file, 1-based line (0 when
// the error is about the whole file), the field path within the item ("" when
// the error is not about one field) and what is wrong.
type InputError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

// Error formats as `records.jsonl:12: field "category": unknown category …`.
func (e *InputError) Error() string {
	var b strings.Builder
	if e.File == "" {
		b.WriteString("<input>")
	} else {
		b.WriteString(e.File)
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		fmt.Fprintf(&b, "field %q: ", e.Field)
	}
	b.WriteString(e.Msg)
	return b.String()
}

func inputErr(file string, line int, field, format string, args ...any) *InputError {
	return &InputError{File: file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// lineReader yields the lines of r with their terminators, numbered from 1,
// refusing lines over max bytes and lines that are not valid UTF-8.
type lineReader struct {
	br   *bufio.Reader
	file string
	max  int
	n    int // number of the last line returned
	buf  []byte
}

func newLineReader(r io.Reader, file string, max int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), file: file, max: max}
}

// next returns the next line including its "\n" (absent on a last line
// without one), or io.EOF after the last line.
func (lr *lineReader) next() ([]byte, error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if len(lr.buf)+len(chunk) > lr.max {
			return nil, inputErr(lr.file, lr.n+1, "", "line is longer than %s", sizeString(lr.max))
		}
		lr.buf = append(lr.buf, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("%s: read: %w", fileName(lr.file), err)
		}
		if len(lr.buf) == 0 {
			return nil, io.EOF
		}
		lr.n++
		line := lr.buf
		if lr.n == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) // byte order mark
		}
		if !utf8.Valid(line) {
			return nil, inputErr(lr.file, lr.n, "", "invalid UTF-8 at byte %d of the line", invalidUTF8At(line)+1)
		}
		return line, nil
	}
}

func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

func sizeString(n int) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

func fileName(file string) string {
	if file == "" {
		return "<input>"
	}
	return file
}

// jsonLine is one non-blank line of a JSON Lines input.
type recordLine struct {
	n    int
	data []byte // trimmed of surrounding white space
}

// readJSONLines reads every non-blank line of r. It fails on an empty input
// (or one holding only blank lines), an oversize line or invalid UTF-8.
func readJSONLines(r io.Reader, file string, max int) ([]recordLine, error) {
	lr := newLineReader(r, file, max)
	var out []recordLine
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		out = append(out, recordLine{n: lr.n, data: bytes.Clone(t)})
	}
	if len(out) == 0 {
		return nil, inputErr(file, 0, "", "file is empty")
	}
	return out, nil
}

// decodeLine decodes one JSON value from data (which starts on line) into
// v. strict refuses fields that v does not have. Errors name the line and,
// where the decoder says, the field.
func decodeLine(file string, line int, data []byte, v any, strict bool) error {
	return decodeAt(file, line, "", data, v, strict)
}

// decodeAt is decodeLine for a value found at path prefix within an item.
func decodeAt(file string, line int, prefix string, data []byte, v any, strict bool) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		var pe *time.ParseError
		if errors.As(err, &pe) {
			// A bad time: name its field, and say what a time looks like.
			e := inputErr(file, line, prefix, "%s is not a time: want RFC 3339 with a four-digit year, such as 2026-11-01T09:00:00Z", strconv.Quote(pe.Value))
			if path, off, ok := problemAt(data, reflect.TypeOf(v), strict); ok {
				e.Field, e.Line = joinField(prefix, path), line+linesBefore(data, off)
			}
			return e
		}
		if errors.As(err, &te) || strings.HasPrefix(err.Error(), "json: unknown field ") {
			if path, off, ok := problemAt(data, reflect.TypeOf(v), strict); ok {
				for off < int64(len(data)) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
					off++
				}
				e := jsonErr(file, line, prefix, data, err).(*InputError)
				e.Field, e.Line = joinField(prefix, path), line+linesBefore(data, off)
				return e
			}
		}
		return jsonErr(file, line, prefix, data, err)
	}
	if dec.More() || int(dec.InputOffset()) < len(bytes.TrimRight(data, " \t\r\n")) {
		return inputErr(file, line, "", "extra data after the JSON value (one item per line)")
	}
	return nil
}

// jsonErr turns an error from decoding data (which starts on line) into an
// *InputError. prefix is the path of the value decoded ("" at the top of an
// item).
func jsonErr(file string, line int, prefix string, data []byte, err error) error {
	var ie *InputError
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &ie):
		return ie
	case errors.As(err, &te):
		line += linesBefore(data, te.Offset)
		return inputErr(file, line, joinField(prefix, te.Field), "wrong type: got JSON %s, want %s", te.Value, typeName(te.Type))
	case errors.As(err, &se):
		line += linesBefore(data, se.Offset-1)
		return inputErr(file, line, prefix, "invalid JSON: %s", strings.TrimPrefix(se.Error(), "json: "))
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return inputErr(file, line+linesBefore(data, int64(len(data))), prefix, "truncated JSON (unexpected end of input)")
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return inputErr(file, line, joinField(prefix, strings.Trim(name, `"`)), "unknown field")
	}
	return inputErr(file, line, prefix, "%s", strings.TrimPrefix(msg, "json: "))
}

// linesBefore counts the line breaks in data before byte offset off. It
// scans from the start: to place many offsets in one buffer use a
// lineCounter.
func linesBefore(data []byte, off int64) int {
	if off <= 0 {
		return 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	lineBytesScanned += off
	return bytes.Count(data[:off], []byte("\n"))
}

// lineBytesScanned counts the bytes line counting has scanned (tests use it
// to prove that placing the elements of a one-line array stays linear).
var lineBytesScanned int64

// lineCounter places increasing offsets of one buffer on lines, scanning
// each byte once (a one-line array of 100,000 messages must not recount
// from the start per element).
type lineCounter struct {
	data []byte
	off  int64 // offset counted up to
	n    int   // line breaks before off
}

// before gives the number of line breaks before off; offsets smaller than
// the last one asked for restart the count.
func (c *lineCounter) before(off int64) int {
	off = min(max(off, 0), int64(len(c.data)))
	if off < c.off {
		c.off, c.n = 0, 0
	}
	lineBytesScanned += off - c.off
	c.n += bytes.Count(c.data[c.off:off], []byte("\n"))
	c.off = off
	return c.n
}

func joinField(prefix, field string) string {
	switch {
	case prefix == "":
		return field
	case field == "":
		return prefix
	}
	return prefix + "." + field
}

// typeName gives a reader-friendly JSON name for a Go type in a type error.
func typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct, reflect.Pointer, reflect.Interface:
		return "object"
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Bool:
		return "boolean"
	}
	return t.String()
}

// fileBase is the file's base name without its extension, made safe for an
// id: "runs/tau-airline.json" → "tau-airline".
func fileBase(file string) string {
	b := filepath.Base(file)
	if file == "" || b == "." || b == "/" || b == "-" {
		return "traj"
	}
	b = strings.TrimSuffix(b, filepath.Ext(b))
	b = strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '-'
	}, b)
	if b == "" {
		return "traj"
	}
	return b
}

// WriteJSONL writes items as JSON Lines: one compact JSON object per line,
// fields in struct order, HTML characters not escaped.
func WriteJSONL[T any](w io.Writer, items []T) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range items {
		if err := enc.Encode(&items[i]); err != nil {
			return fmt.Errorf("write item %d: %w", i+1, err)
		}
	}
	return bw.Flush()
}
