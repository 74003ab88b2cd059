package formats

// Input: one file's bytes and the shape detection works from (what the
// top-level value is and which keys it and its first element have),
// computed once and shared by every format's fits.

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Input is one file to import.
type Input struct {
	File string
	Data []byte

	shaped bool
	shape  shape
	lines  []int // offsets of the line breaks in Data, built on first use
}

// NewInput wraps a file's bytes. A UTF-8 byte order mark is dropped.
func NewInput(file string, data []byte) *Input {
	return &Input{File: file, Data: bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))}
}

// shape is what detection looks at.
type shape struct {
	kind  string              // "object", "array", "lines", "zip", "json" (another JSON value), "" (not JSON)
	keys  map[string]bool     // the top-level object's keys (object), the first element's (array, lines)
	obj   map[string]rawValue // the top-level object's fields (object only)
	first []byte              // the first element (array) or first line (lines)
	zip   *zip.Reader
	why   string // why it is not JSON, when kind is ""
	inner []byte // for a JSON string that holds JSON: the decoded text
}

type rawValue = json.RawMessage

func (in *Input) getShape() *shape {
	if in.shaped {
		return &in.shape
	}
	in.shaped = true
	in.shape = shapeOf(in.Data)
	return &in.shape
}

func shapeOf(data []byte) shape {
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return shape{why: "a broken zip archive: " + err.Error()}
		}
		return shape{kind: "zip", zip: zr}
	}
	t := bytes.TrimSpace(data)
	if len(t) == 0 {
		return shape{why: "the file is empty"}
	}
	if !utf8.Valid(t) {
		return shape{why: "not UTF-8 text"}
	}
	switch t[0] {
	case '{':
		var obj map[string]rawValue
		if err := json.Unmarshal(t, &obj); err == nil {
			return shape{kind: "object", obj: obj, keys: keySet(obj)}
		}
		// JSON Lines: the first line is a whole object.
		line, _, _ := bytes.Cut(t, []byte("\n"))
		if err := json.Unmarshal(line, &obj); err == nil {
			return shape{kind: "lines", keys: keySet(obj), first: bytes.TrimSpace(line)}
		}
		return shape{why: "not valid JSON (" + syntaxWhy(t) + ")"}
	case '[':
		if !json.Valid(t) {
			return shape{why: "not valid JSON (" + syntaxWhy(t) + ")"}
		}
		dec := json.NewDecoder(bytes.NewReader(t))
		dec.Token()
		if !dec.More() {
			return shape{kind: "array"}
		}
		var first rawValue
		if dec.Decode(&first) != nil {
			return shape{kind: "array"}
		}
		var obj map[string]rawValue
		json.Unmarshal(first, &obj)
		return shape{kind: "array", keys: keySet(obj), first: first}
	case '"':
		var s string
		if json.Unmarshal(t, &s) == nil {
			if inner := bytes.TrimSpace([]byte(s)); len(inner) > 0 && (inner[0] == '{' || inner[0] == '[') {
				sh := shapeOf(inner)
				sh.inner = inner
				return sh
			}
		}
		return shape{kind: "json"}
	}
	if json.Valid(t) {
		return shape{kind: "json"}
	}
	return shape{why: "not JSON (it starts with " + fmt.Sprintf("%q", string(t[:min(len(t), 12)])) + ")"}
}

func syntaxWhy(t []byte) string {
	var v any
	err := json.Unmarshal(t, &v)
	if err == nil {
		return "more than one value"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func keySet(obj map[string]rawValue) map[string]bool {
	if obj == nil {
		return nil
	}
	ks := make(map[string]bool, len(obj))
	for k := range obj {
		ks[k] = true
	}
	return ks
}

// shapeText describes the input for the "no known format" paragraph.
func (in *Input) shapeText() string {
	sh := in.getShape()
	keys := func() string {
		var ks []string
		for k := range sh.keys {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		if len(ks) > 8 {
			ks = append(ks[:8], "…")
		}
		if len(ks) == 0 {
			return "none"
		}
		return strings.Join(ks, ", ")
	}
	switch sh.kind {
	case "":
		return "it is " + sh.why
	case "object":
		return "a JSON object with keys " + keys()
	case "array":
		if sh.first == nil {
			return "an empty JSON array"
		}
		return "a JSON array whose first element has keys " + keys()
	case "lines":
		return "JSON Lines whose first line has keys " + keys()
	case "zip":
		return fmt.Sprintf("a zip archive of %d files", len(sh.zip.File))
	}
	return "a JSON value that is not an object or array"
}

// data gives the JSON text to read: the file, or the JSON a top-level JSON
// string holds.
func (in *Input) data() []byte {
	if sh := in.getShape(); sh.inner != nil {
		return sh.inner
	}
	return in.Data
}

// lineAt gives the 1-based line of byte offset off in Data.
func (in *Input) lineAt(off int64) int {
	if in.getShape().inner != nil {
		return 1 // a JSON string holding the document: it is all one line
	}
	if in.lines == nil {
		in.lines = []int{}
		for i, b := range in.Data {
			if b == '\n' {
				in.lines = append(in.lines, i)
			}
		}
	}
	return sort.SearchInts(in.lines, int(off)) + 1
}

// errAt is an input error at JSON path (within the value starting at byte
// offset base of Data; "" for the whole file).
func (in *Input) errAt(base int64, data []byte, path string, format string, args ...any) error {
	line := 0
	if data != nil {
		// The deepest part of the path that is there (a missing field is
		// placed at the object that lacks it).
		line = in.lineAt(base)
		for p := path; ; {
			if off, ok := locate(data, p); ok {
				line = in.lineAt(base + off)
				break
			}
			i := strings.LastIndexAny(p, ".[")
			if i <= 0 {
				break
			}
			p = p[:i]
		}
	}
	return &InputError{File: in.File, Line: line, Field: path, Msg: fmt.Sprintf(format, args...)}
}

// errIn is an input error at field of the item raw (at base in Data),
// which is at prefix in the file's JSON: the line is the field's (or the
// item's), the field named is prefix.field.
func (in *Input) errIn(base int64, raw []byte, prefix, field string, format string, args ...any) error {
	err := in.errAt(base, raw, field, format, args...).(*InputError)
	err.Field = joinPath(prefix, field)
	return err
}

// decodeErr turns an error from decoding data (at base in Data) into an
// input error naming the line and field.
func (in *Input) decodeErr(base int64, data []byte, prefix string, err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errorAs(err, &te):
		return &InputError{File: in.File, Line: in.lineAt(base + te.Offset), Field: joinPath(prefix, te.Field),
			Msg: fmt.Sprintf("wrong type: got JSON %s, want %s", te.Value, jsonType(te.Type.Kind().String()))}
	case errorAs(err, &se):
		return &InputError{File: in.File, Line: in.lineAt(base + se.Offset), Field: prefix,
			Msg: "invalid JSON: " + strings.TrimPrefix(se.Error(), "json: ")}
	}
	return &InputError{File: in.File, Line: in.lineAt(base), Field: prefix, Msg: strings.TrimPrefix(err.Error(), "json: ")}
}

func jsonType(kind string) string {
	switch kind {
	case "slice", "array":
		return "array"
	case "map", "struct", "ptr", "interface":
		return "object"
	case "string":
		return "string"
	case "bool":
		return "boolean"
	}
	return "number"
}

func joinPath(prefix, field string) string {
	switch {
	case prefix == "":
		return field
	case field == "":
		return prefix
	}
	return prefix + "." + field
}
