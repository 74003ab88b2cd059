package review

import (
	"reflect"
	"testing"
)

// TestRecordRefsByTrajectory: the one-pass read of provenance gives, per
// trajectory, exactly the records whose provenance names it, in id order,
// with the steps they cite (the zero range for none); records from no
// trajectory are left out.
func TestRecordRefsByTrajectory(t *testing.T) {
	s := newBank(t) // mem_a, mem_b, mem_c: no provenance
	recs := []Record{
		{ID: "mem_z", Lemma: "z", Category: Fact, Provenance: Provenance{Trajectory: "traj_1", Steps: &StepRange{From: 4, To: 6}}},
		{ID: "mem_d", Lemma: "d", Category: Fact, Provenance: Provenance{Trajectory: "traj_1", Steps: &StepRange{From: 2, To: 2}}},
		{ID: "mem_e", Lemma: "e", Category: Fact, Provenance: Provenance{Trajectory: "traj_2"}},
	}
	if err := s.PutRecords(recs, "test", "fixture"); err != nil {
		t.Fatal(err)
	}
	got, err := s.RecordRefsByTrajectory()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]RecordRef{
		"traj_1": {{ID: "mem_d", Steps: StepRange{From: 2, To: 2}}, {ID: "mem_z", Steps: StepRange{From: 4, To: 6}}},
		"traj_2": {{ID: "mem_e"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}
