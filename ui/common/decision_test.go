package common

import (
	"errors"
	"fmt"
	"testing"

	"github.com/memreview/memreview/review"
)

func TestUndoFailed(t *testing.T) {
	ce := &review.ConflictError{Record: "mem_1", Undo: "dec_1", Seen: 2, Now: 3, Decision: "dec_2"}
	for _, c := range []struct {
		err  error
		want string
	}{
		{errors.New("undo: there is no decision to undo"), "there is no decision to undo"},
		{fmt.Errorf("undo: decision dec_1 was already undone by dec_2"), "decision dec_1 was already undone by dec_2"},
		{fmt.Errorf("undo dec_1: %w", ce), "nothing was undone — undo dec_1: " + ce.Error()},
		{errors.New("database is locked"), "undo failed, nothing was changed: database is locked"},
	} {
		if got := UndoFailed(c.err); got != c.want {
			t.Errorf("UndoFailed(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}
