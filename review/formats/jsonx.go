package formats

// Lenient JSON helpers for formats whose producers disagree: values that
// are a string in one file and an object in the next, JSON inside JSON
// strings, four timestamp encodings, and finding where a JSON path is in
// the text (for error lines).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

func errorAs[T error](err error, target *T) bool { return errors.As(err, target) }

// locate finds the byte offset of the value at path ("a.b[2].c", "[0].role")
// in data.
func locate(data []byte, path string) (int64, bool) {
	if path == "" {
		return 0, true
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for _, step := range splitPath(path) {
		tok, err := dec.Token()
		if err != nil {
			return 0, false
		}
		switch tok {
		case json.Delim('{'):
			found := false
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return 0, false
				}
				if k == step {
					found = true
					break
				}
				var skip json.RawMessage
				if dec.Decode(&skip) != nil {
					return 0, false
				}
			}
			if !found {
				return 0, false
			}
		case json.Delim('['):
			n, err := strconv.Atoi(step)
			if err != nil {
				return 0, false
			}
			for i := 0; i < n; i++ {
				var skip json.RawMessage
				if !dec.More() || dec.Decode(&skip) != nil {
					return 0, false
				}
			}
			if !dec.More() {
				return 0, false
			}
		default:
			return 0, false
		}
	}
	off := dec.InputOffset()
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
		off++
	}
	return off, true
}

// splitPath splits "a.b[2].c[some.key]" into a, b, 2, c, some.key: a
// bracket holds an index or a key (which may hold dots).
func splitPath(path string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for i := 0; i < len(path); i++ {
		switch c := path[i]; c {
		case '.':
			flush()
		case '[':
			flush()
			j := strings.IndexByte(path[i:], ']')
			if j < 0 {
				out = append(out, path[i+1:])
				return out
			}
			out = append(out, path[i+1:i+j])
			i += j
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	return out
}

// isNull reports whether v is absent or JSON null.
func isNull(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) == 0 || string(v) == "null"
}

// str gives a JSON string's value or a number's or boolean's text ("" for
// anything else).
func str(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return ""
	}
	switch v[0] {
	case '"':
		var s string
		json.Unmarshal(v, &s)
		return s
	case '{', '[', 'n':
		return ""
	}
	return string(v)
}

// unwrap gives the JSON a string holds when v is a string whose text is a
// JSON object or array; else v itself. Python reprs ({'a': 1}) stay strings.
func unwrap(v json.RawMessage) json.RawMessage {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || v[0] != '"' {
		return v
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return v
	}
	t := strings.TrimSpace(s)
	if t != "" && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t)) {
		return json.RawMessage(t)
	}
	return v
}

// object decodes v (or the JSON a string v holds) as an object; ok is false
// when it is not one.
func object(v json.RawMessage) (map[string]json.RawMessage, bool) {
	v = unwrap(v)
	if len(v) == 0 || v[0] != '{' {
		return nil, false
	}
	var m map[string]json.RawMessage
	return m, json.Unmarshal(v, &m) == nil
}

// array decodes v (or the JSON a string v holds) as an array.
func array(v json.RawMessage) ([]json.RawMessage, bool) {
	v = unwrap(v)
	if len(v) == 0 || v[0] != '[' {
		return nil, false
	}
	var a []json.RawMessage
	return a, json.Unmarshal(v, &a) == nil
}

// textOf gives readable text for a value: a string as is, null as "", and
// anything else as its compact JSON.
func textOf(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if isNull(v) {
		return ""
	}
	if v[0] == '"' {
		return str(v)
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

// argsText gives tool-call arguments as JSON text whether the producer
// wrote them as a JSON string or an object.
func argsText(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) > 0 && v[0] == '"' {
		return str(v)
	}
	return textOf(v)
}

// parseTime reads the timestamp encodings producers use: RFC 3339 (with or
// without an offset; none means UTC), Unix seconds, milliseconds or
// nanoseconds (a number or a string of digits), and [seconds, nanos]
// pairs. ok is false for anything else (free text).
func parseTime(v json.RawMessage) (time.Time, bool) {
	v = bytes.TrimSpace(v)
	if isNull(v) {
		return time.Time{}, false
	}
	switch v[0] {
	case '"':
		return parseTimeText(str(v))
	case '[':
		var pair []float64
		if json.Unmarshal(v, &pair) != nil || len(pair) != 2 {
			return time.Time{}, false
		}
		return unixTime(pair[0], pair[1])
	}
	var f float64
	if json.Unmarshal(v, &f) != nil {
		return time.Time{}, false
	}
	return unixNumber(f)
}

var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", "2006-01-02"}

func parseTimeText(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, false
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 1e17 {
			return time.Unix(0, n).UTC(), true // nanoseconds, exactly
		}
		return unixNumber(f)
	}
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			if t.Year() < 1 || t.Year() > 9999 {
				return time.Time{}, false
			}
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// unixNumber reads seconds, milliseconds or nanoseconds by magnitude.
func unixNumber(f float64) (time.Time, bool) {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0) || f < 0:
		return time.Time{}, false
	case f > 1e17:
		return unixTime(0, f)
	case f > 1e14:
		return unixTime(0, f*1e3) // microseconds
	case f > 1e11:
		return unixTime(math.Floor(f/1e3), math.Mod(f, 1e3)*1e6)
	}
	return unixTime(math.Floor(f), (f-math.Floor(f))*1e9)
}

func unixTime(sec, nsec float64) (time.Time, bool) {
	if math.IsNaN(sec) || math.IsNaN(nsec) || sec < 0 || sec > 253402300799 || nsec < 0 || nsec > 9.3e18 {
		return time.Time{}, false
	}
	return time.Unix(int64(sec), int64(nsec)).UTC(), true
}

// jsonLine is one non-blank line of a JSON Lines file.
type jsonLine struct {
	n    int   // 1-based line number
	off  int64 // offset of the line in the data
	data []byte
}

// jsonLines splits data into its non-blank lines.
func jsonLines(data []byte) []jsonLine {
	var out []jsonLine
	n := 0
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data) - off
		}
		n++
		line := data[off : off+end]
		if t := bytes.TrimSpace(line); len(t) > 0 {
			out = append(out, jsonLine{n: n, off: int64(off + bytes.Index(line, t)), data: t})
		}
		off += end + 1
	}
	return out
}

// arrayElems splits a JSON array (data, at offset 0 of in.Data unless it
// is inner JSON) into its elements and their offsets.
func arrayElems(in *Input, data []byte) ([]rawValue, []int64, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, nil, in.errAt(0, nil, "", "want a JSON array")
	}
	var elems []rawValue
	var offs []int64
	for dec.More() {
		var e rawValue
		if err := dec.Decode(&e); err != nil {
			return nil, nil, in.decodeErr(0, data, fmt.Sprintf("[%d]", len(elems)), err)
		}
		elems = append(elems, e)
		offs = append(offs, dec.InputOffset()-int64(len(e)))
	}
	return elems, offs, nil
}

// eachValue calls fn on each top-level JSON value of data by the input's
// shape: the object itself, each element of an array (path "[i]"), or each
// non-blank line of JSON Lines. line is the value's 1-based line in Data.
func eachValue(in *Input, data []byte, fn func(off int64, raw rawValue, line int, path string) error) error {
	switch in.getShape().kind {
	case "object":
		return fn(0, data, 1, "")
	case "array":
		elems, offs, err := arrayElems(in, data)
		if err != nil {
			return err
		}
		for i, e := range elems {
			if err := fn(offs[i], e, in.lineAt(offs[i]), fmt.Sprintf("[%d]", i)); err != nil {
				return err
			}
		}
	case "lines":
		for _, l := range jsonLines(data) {
			if err := fn(l.off, l.data, l.n, ""); err != nil {
				return err
			}
		}
	}
	return nil
}

// textOfMap gives an object as compact JSON.
func textOfMap(m map[string]rawValue) string {
	b, _ := json.Marshal(m)
	return string(b)
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
