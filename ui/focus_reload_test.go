package ui

import (
	"testing"

	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// While the operator is on the bank screen focused on a record, a reload
// of the hidden review screen (proposals queued by a curator run) keeps that focus:
// the probe console still attaches to the record, not the proposal.
func TestHiddenReviewReloadKeepsTheFocus(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := started(t, w.deps, 120, 40)
	m = drive(t, m, uitest.Key("2"))
	m = drive(t, m, common.Focus{Kind: "record", ID: "mem_0001"})
	m = drive(t, m, common.QueueChanged{}) // a curator run queued proposals: only the review screen reloads
	if f := m.(*Model).focus; f == nil || f.Kind != "record" || f.ID != "mem_0001" {
		t.Fatalf("after a reload of the hidden review screen the focus is %+v, want record mem_0001", f)
	}
}
