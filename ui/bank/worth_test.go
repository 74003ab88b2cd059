package bank

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// sampleWorth is the sample world's active records and what each is
// worth, after two more tasks that retrieved the last record failed (the
// sample world has no record retrieved mostly by failed tasks).
func sampleWorth(t *testing.T, deps common.Deps) ([]review.Record, map[string]review.Worth) {
	t.Helper()
	trs, err := uitest.Store(t, deps).Trajectories()
	if err != nil {
		t.Fatal(err)
	}
	last, err := uitest.Store(t, deps).Records(review.RecordFilter{})
	if err != nil || len(last) == 0 {
		t.Fatal(err)
	}
	var more []review.Trajectory
	for i := range 2 {
		tr := trs[0]
		tr.ID = fmt.Sprintf("traj_failed_%d", i)
		tr.Outcome = review.Outcome{Passed: false}
		tr.Retrieved = []string{last[len(last)-1].ID}
		tr.Distilled = nil
		more = append(more, tr)
	}
	if err := uitest.Store(t, deps).PutTrajectories(more); err != nil {
		t.Fatal(err)
	}
	if trs, err = uitest.Store(t, deps).Trajectories(); err != nil {
		t.Fatal(err)
	}
	all, err := uitest.Store(t, deps).Records(review.RecordFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var recs []review.Record
	for _, r := range all {
		if r.Status == review.Active {
			recs = append(recs, r)
		}
	}
	return recs, review.WorthOf(trs)
}

// extreme is the active record of highest (best) or lowest lift, ties to
// the one more tasks retrieved, then the smaller id.
func extreme(recs []review.Record, worth map[string]review.Worth, best bool) string {
	pick := ""
	for _, r := range recs {
		if pick == "" {
			pick = r.ID
			continue
		}
		a, b := worth[r.ID], worth[pick]
		la, lb := a.Lift(), b.Lift()
		if !best {
			la, lb = -la, -lb
		}
		if la > lb || la == lb && (a.Retrieved > b.Retrieved || a.Retrieved == b.Retrieved && r.ID < pick) {
			pick = r.ID
		}
	}
	return pick
}

// TestWorthRowsAndDetail checks every row on screen and the detail
// directly: the mark exactly on the records retrieved mostly by failed
// tasks, and the detail's line is the record's Worth in full.
func TestWorthRowsAndDetail(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	recs, worth := sampleWorth(t, deps)
	m := New(common.NewCommon(), deps).(*Model)
	m.SetSize(400, 200)
	uitest.Drain(t, m, m.Init())
	if m.ws.worth == nil {
		t.Fatal("the worth did not load")
	}
	marked := 0
	for i := 0; i < m.list.total; i++ {
		h, _ := m.list.hit(i)
		got := strings.Contains(m.rowText(i, columns{id: 8, category: 12, env: 6}, 400), "✘ mostly failed")
		if want := worth[h.ID].MostlyFailed(); got != want {
			t.Errorf("row %s: marked %v, retrieved %d, passed %d", h.ID, got, worth[h.ID].Retrieved, worth[h.ID].Passed)
		}
		if got {
			marked++
		}
	}
	if m.list.total != len(recs) || marked == 0 || marked == len(recs) {
		t.Errorf("%d rows of %d records, %d marked", m.list.total, len(recs), marked)
	}
	for _, id := range []string{extreme(recs, worth, true), extreme(recs, worth, false)} {
		uitest.Drain(t, m, func() tea.Msg { return common.ShowRecord{ID: id} })
		if !m.ready() || m.detail.Record.ID != id {
			t.Fatalf("the detail of %s did not load", id)
		}
		want := common.Indent(m.Styles.Label.Render("worth: "), worth[id].String(), 380, 2)
		if c := m.detailContent(380); !strings.Contains(c, want) {
			t.Errorf("the detail of %s lacks %q", id, want)
		}
	}
}

// TestWorthSortOrder: w orders every row by lift, best first, then worst
// first, and a third w goes back to the index's order (by id).
func TestWorthSortOrder(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	recs, worth := sampleWorth(t, deps)
	m := New(common.NewCommon(), deps).(*Model)
	m.SetSize(200, 60)
	uitest.Drain(t, m, m.Init())
	rows := func() []string {
		var ids []string
		for i := 0; i < m.list.total; i++ {
			h, ok := m.list.hit(i)
			if !ok {
				t.Fatalf("row %d not loaded", i)
			}
			ids = append(ids, h.ID)
		}
		return ids
	}
	for _, best := range []bool{true, false} {
		uitest.Drain(t, m, m.cycleWorthOrder())
		ids := rows()
		if len(ids) != len(recs) {
			t.Fatalf("%d rows sorted, want %d", len(ids), len(recs))
		}
		for i := 1; i < len(ids); i++ {
			a, b := worth[ids[i-1]].Lift(), worth[ids[i]].Lift()
			if best && a < b || !best && a > b {
				t.Errorf("best=%v: %s (lift %.3f) before %s (lift %.3f)", best, ids[i-1], a, ids[i], b)
			}
		}
	}
	uitest.Drain(t, m, m.cycleWorthOrder())
	ids := rows()
	for i := 1; i < len(ids); i++ {
		if ids[i-1] > ids[i] {
			t.Fatalf("back in the index's order, %s comes before %s", ids[i-1], ids[i])
		}
	}
}
