package common

import (
	"errors"
	"fmt"
	"strings"

	"github.com/memreview/memreview/review"
)

// DecisionSummary says what a committed decision did, for the footer: head
// (what was decided, "accepted prop_x" or "edit dec_3"), then the record
// versions it wrote, "→ mem_y v2, mem_z v3 (retired)", when it wrote any,
// and which checks took their baseline from a live run.
func DecisionSummary(head string, d *review.Decision) string {
	var parts []string
	for _, c := range d.Changes {
		p := fmt.Sprintf("%s v%d", c.RecordID, c.After)
		if c.AfterR != nil && c.AfterR.Status == review.Retired {
			p += " (retired)"
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return head
	}
	s := head + " → " + strings.Join(parts, ", ")
	if len(d.NoBaseline) > 0 { // first: the part that needs the operator
		s += " · " + review.NoBaselineText(d.NoBaseline)
	}
	if len(d.Baselines) > 0 {
		s += " · " + review.BaselineText(d.Baselines)
	}
	return s
}

// UndoFailed says in one sentence why an undo changed nothing, for the
// footer. The store's own undo errors ("undo: there is no decision to
// undo") say it already and are shown without their prefix rather than
// behind another "undo failed"; a conflict says what to undo first.
func UndoFailed(err error) string {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "undo: "); ok {
		return rest
	}
	var ce *review.ConflictError
	if errors.As(err, &ce) {
		return "nothing was undone — " + msg
	}
	return "undo failed, nothing was changed: " + msg
}
