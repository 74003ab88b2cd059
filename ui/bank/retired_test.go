package bank

import (
	"context"
	"slices"
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// listedIDs returns the ids of every row of the result list (all its pages
// are loaded on the sample world).
func listedIDs(m *Model) []string {
	var ids []string
	for i := range m.list.total {
		if h, ok := m.list.hit(i); ok {
			ids = append(ids, h.ID)
		}
	}
	return ids
}

// TestRetiredHiddenUnlessAsked: a retired record is not listed by the
// bank screen, neither with a blank query nor with one that names it,
// until the status facet asks for retired (request in source.go); then
// it is listed, alone, and clearing the facet hides it again.
func TestRetiredHiddenUnlessAsked(t *testing.T) {
	t.Parallel()
	m, deps := openBank(t)
	id := sample.RecWrong
	if _, err := deps.Service.DecideRecords(context.Background(), review.RecordRequest{Verb: review.Delete, IDs: []string{id}}); err != nil {
		t.Fatal(err)
	}
	_, cmd := m.Update(common.BankChanged{})
	uitest.Drain(t, m, cmd)
	active, err := deps.Service.Records(review.RecordFilter{Status: review.Active})
	if err != nil {
		t.Fatal(err)
	}
	if got := listedIDs(m); len(got) != len(active) || slices.Contains(got, id) {
		t.Fatalf("after retiring %s the bank lists %d records (has it: %v), want the %d active", id, len(got), slices.Contains(got, id), len(active))
	}
	typeQuery(t, m, id)
	if slices.Contains(listedIDs(m), id) {
		t.Errorf("a query naming retired %s lists it", id)
	}
	sendKey(t, m, uitest.Key("x"))

	// The facet picker: down to status retired, space, enter.
	sendKey(t, m, uitest.Key("f"))
	fp, ok := m.overlay.(*facetPicker)
	if !ok {
		t.Fatalf("f opened %T, want the facet picker", m.overlay)
	}
	for range len(m.facetRows()) {
		if fp.cur.field == "status" && fp.cur.term == string(review.Retired) {
			break
		}
		sendKey(t, m, uitest.Key("down"))
	}
	sendKey(t, m, space)
	sendKey(t, m, uitest.Key("enter"))
	if got := listedIDs(m); !slices.Equal(got, []string{id}) {
		t.Errorf("with the retired facet the bank lists %v, want only %s", got, id)
	}
	sendKey(t, m, uitest.Key("x"))
	if got := listedIDs(m); slices.Contains(got, id) || len(got) != len(active) {
		t.Errorf("x left %d records listed (retired %s among them: %v)", len(got), id, slices.Contains(got, id))
	}
}

// typeQuery types q into the search box and runs it.
func typeQuery(t *testing.T, m *Model, q string) {
	t.Helper()
	sendKey(t, m, uitest.Key("/"))
	for _, r := range q {
		sendKey(t, m, uitest.Key(string(r)))
	}
	sendKey(t, m, uitest.Key("enter"))
}
