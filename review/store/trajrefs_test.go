package store

import (
	"reflect"
	"testing"

	"github.com/memreview/memreview/review"
)

// TestRecordRefsByTrajectory: the one-pass read of provenance gives, per
// trajectory, exactly the records whose provenance names it, in id order,
// with the steps they cite (the zero range for none); records from no
// trajectory are left out.
func TestRecordRefsByTrajectory(t *testing.T) {
	t.Parallel()
	s := newBank(t) // mem_a, mem_b, mem_c: no provenance
	recs := []review.Record{
		{ID: "mem_z", Lemma: "z", Category: review.Fact, Provenance: review.Provenance{Trajectory: "traj_1", Steps: &review.StepRange{From: 4, To: 6}}},
		{ID: "mem_d", Lemma: "d", Category: review.Fact, Provenance: review.Provenance{Trajectory: "traj_1", Steps: &review.StepRange{From: 2, To: 2}}},
		{ID: "mem_e", Lemma: "e", Category: review.Fact, Provenance: review.Provenance{Trajectory: "traj_2"}},
	}
	if err := s.PutRecords(recs, "test", "fixture"); err != nil {
		t.Fatal(err)
	}
	refs, err := s.RecordRefsByTrajectory()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]review.RecordRef{}
	for traj, tr := range refs {
		for i := range tr.Len() {
			got[traj] = append(got[traj], tr.At(i))
		}
	}
	want := map[string][]review.RecordRef{
		"traj_1": {{ID: "mem_d", Steps: review.StepRange{From: 2, To: 2}}, {ID: "mem_z", Steps: review.StepRange{From: 4, To: 6}}},
		"traj_2": {{ID: "mem_e"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// TestTrajectoryRefsAddAfterSeal: refs read the same sealed or not, and
// an Add after Seal keeps what was there.
func TestTrajectoryRefsAddAfterSeal(t *testing.T) {
	t.Parallel()
	var tr review.TrajectoryRefs
	tr.Add("mem_a", review.StepRange{From: 1, To: 2})
	tr.Add("mem_bb", review.StepRange{})
	before := []review.RecordRef{tr.At(0), tr.At(1)}
	tr.Seal()
	if after := []review.RecordRef{tr.At(0), tr.At(1)}; !reflect.DeepEqual(before, after) {
		t.Fatalf("sealed %v, unsealed %v", after, before)
	}
	tr.Add("mem_c", review.StepRange{From: 7, To: 7})
	want := []review.RecordRef{{ID: "mem_a", Steps: review.StepRange{From: 1, To: 2}}, {ID: "mem_bb", Steps: review.StepRange{}}, {ID: "mem_c", Steps: review.StepRange{From: 7, To: 7}}}
	var got []review.RecordRef
	for i := range tr.Len() {
		got = append(got, tr.At(i))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after an Add past Seal: %v, want %v", got, want)
	}
}
