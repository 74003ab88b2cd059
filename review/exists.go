package review

import "errors"

// ErrExists is what ExistsError matches with errors.Is.
var ErrExists = errors.New("already in the bank")

// ExistsError says that something to be added new is already in the
// bank: a trajectory id that a stored run holds. It is never overwritten.
type ExistsError struct {
	Kind string // "trajectory"
	ID   string
}

func (e *ExistsError) Error() string { return e.Kind + " " + e.ID + " is already in the bank" }

// Is makes errors.Is(err, ErrExists) true.
func (e *ExistsError) Is(target error) bool { return target == ErrExists }
