package formats

// Locating decoding errors: encoding/json names a wrongly typed field
// without array indices ("targets.id") and an unknown field without its
// path ("lemmma"). problemAt walks the JSON along the Go type in document
// order, as the decoder does, to name the first problem exactly
// ("targets[0].id", "record.lemmma") and give its byte offset.

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
)

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// problemAt returns the path and offset of the first value in data that
// does not fit t: a field t lacks (when strict) or a JSON value of the
// wrong kind. ok is false when it finds none.
func problemAt(data []byte, t reflect.Type, strict bool) (path string, off int64, ok bool) {
	w := &pathWalker{dec: json.NewDecoder(bytes.NewReader(data)), data: data, strict: strict}
	defer func() { _ = recover() }() // malformed input: give up quietly
	return w.walk(t, "")
}

type pathWalker struct {
	dec    *json.Decoder
	data   []byte
	strict bool
}

func (w *pathWalker) walk(t reflect.Type, path string) (string, int64, bool) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	start := w.dec.InputOffset()
	tok, err := w.dec.Token()
	if err != nil {
		return "", 0, false
	}
	opaque := t == nil || t.Kind() == reflect.Interface ||
		reflect.PointerTo(t).Implements(jsonUnmarshaler) ||
		reflect.PointerTo(t).Implements(textUnmarshaler) && t.Kind() != reflect.String
	if opaque {
		w.skip(tok)
		// A value with its own decoding (a time) is tried on its own, so
		// that its error names the field.
		if t != nil && t.Kind() != reflect.Interface {
			for start < int64(len(w.data)) && strings.IndexByte(" \t\r\n,:", w.data[start]) >= 0 {
				start++
			}
			raw := w.data[start:w.dec.InputOffset()]
			if json.Unmarshal(raw, reflect.New(t).Interface()) != nil {
				return path, start, true
			}
		}
		return "", 0, false
	}
	bad := func() (string, int64, bool) { return path, start, true }
	switch tok := tok.(type) {
	case json.Delim:
		switch {
		case tok == '{' && t.Kind() == reflect.Map:
			for w.dec.More() {
				key, _ := w.dec.Token()
				if p, o, ok := w.walk(t.Elem(), joinField(path, key.(string))); ok {
					return p, o, ok
				}
			}
		case tok == '{' && t.Kind() == reflect.Struct:
			for w.dec.More() {
				at := w.dec.InputOffset()
				key, _ := w.dec.Token()
				name := key.(string)
				ft, found := fieldType(t, name)
				if !found {
					if w.strict {
						return joinField(path, name), at, true
					}
					v, _ := w.dec.Token()
					w.skip(v)
					continue
				}
				if p, o, ok := w.walk(ft, joinField(path, name)); ok {
					return p, o, ok
				}
			}
		case tok == '[' && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
			for i := 0; w.dec.More(); i++ {
				if p, o, ok := w.walk(t.Elem(), path+"["+strconv.Itoa(i)+"]"); ok {
					return p, o, ok
				}
			}
		default:
			return bad()
		}
		w.dec.Token() // the closing delimiter
	case string:
		if t.Kind() != reflect.String && !(t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8) {
			return bad()
		}
	case float64:
		switch t.Kind() {
		case reflect.Float32, reflect.Float64:
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			if tok != float64(int64(tok)) {
				return bad()
			}
		default:
			return bad()
		}
	case bool:
		if t.Kind() != reflect.Bool {
			return bad()
		}
	}
	return "", 0, false
}

// skip consumes the rest of a value whose first token is tok.
func (w *pathWalker) skip(tok json.Token) {
	if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
		for depth := 1; depth > 0; {
			t, err := w.dec.Token()
			if err != nil {
				return
			}
			if d, ok := t.(json.Delim); ok {
				if d == '{' || d == '[' {
					depth++
				} else {
					depth--
				}
			}
		}
	}
}

// fieldType finds the field of struct t that JSON key name decodes into,
// as encoding/json does: exact name first, then case-insensitively.
func fieldType(t reflect.Type, name string) (reflect.Type, bool) {
	var fold reflect.Type
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		if tag == name {
			return f.Type, true
		}
		if fold == nil && strings.EqualFold(tag, name) {
			fold = f.Type
		}
	}
	return fold, fold != nil
}
