package store

import (
	"errors"
	"strings"
	"testing"

	"github.com/memreview/memreview/review/formats"
)

// wantInputErr fails unless err is a *formats.InputError at file:line,
// field, with msg in its message (the store's tests read files through
// the formats before writing them).
func wantInputErr(t *testing.T, err error, file string, line int, field, msg string) {
	t.Helper()
	var ie *formats.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("got error %v (%T), want *formats.InputError", err, err)
	}
	if ie.File != file || ie.Line != line || ie.Field != field || !strings.Contains(ie.Msg, msg) {
		t.Errorf("got %s:%d field %q: %q, want %s:%d field %q containing %q", ie.File, ie.Line, ie.Field, ie.Msg, file, line, field, msg)
	}
}
