package review

import "fmt"

// CheckTargetCount says what is wrong with a proposal of op naming n
// target records ("" when nothing is): a create names none, an update or
// a narrow exactly one, a merge or a delete at least one. A second target
// of an update is refused, never ignored.
func CheckTargetCount(op Op, n int) string {
	switch op {
	case OpCreate:
		if n > 0 {
			return "a create names no targets (to change existing records, use update, narrow or merge)"
		}
	case OpUpdate, OpNarrow:
		if n == 0 {
			return fmt.Sprintf("%s takes exactly one target record, not none", op)
		}
		if n > 1 {
			return fmt.Sprintf("%s takes exactly one target record, not %d (to fold several into one, use merge)", op, n)
		}
	case OpMerge, OpDelete:
		if n == 0 {
			return fmt.Sprintf("%s needs at least one target record", op)
		}
	}
	return ""
}
