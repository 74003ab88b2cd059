package app

import (
	"errors"

	"github.com/memreview/memreview/review"
)

// LastUndoable is the decision an undo without an id would reverse: the
// latest one that is not an undo and has not been undone. A screen that
// did not make it names it and asks before undoing it.
func (s *Service) LastUndoable() (*review.Decision, error) {
	ds, err := s.b.Decisions()
	if err != nil {
		return nil, err
	}
	for i := len(ds) - 1; i >= 0; i-- {
		if d := ds[i]; d.Verb != review.Undo && d.UndoneBy == "" {
			return &d, nil
		}
	}
	return nil, errors.New("undo: there is no decision to undo")
}
