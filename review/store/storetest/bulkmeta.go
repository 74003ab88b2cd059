package storetest

import (
	"fmt"
	"testing"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

// testTrajectoryRefs: every trajectory a record's provenance names lists
// those records in id order with the steps they cite (none for a record
// that cites no steps); records without a trajectory are in none.
func testTrajectoryRefs(t *testing.T, b Store) {
	recs := []review.Record{
		{ID: "mem_t2", Lemma: "second", Category: review.Fact, Confidence: 0.5, Provenance: review.Provenance{Trajectory: "traj_a"}},
		{ID: "mem_t1", Lemma: "first", Category: review.Fact, Confidence: 0.5,
			Provenance: review.Provenance{Trajectory: "traj_a", Steps: &review.StepRange{From: 2, To: 4}}},
		{ID: "mem_t3", Lemma: "third", Category: review.Fact, Confidence: 0.5,
			Provenance: review.Provenance{Trajectory: "traj_b", Steps: &review.StepRange{From: 7, To: 7}}},
		{ID: "mem_t4", Lemma: "none", Category: review.Fact, Confidence: 0.5},
	}
	must(t, b.PutRecords(recs, "test", "fixture"))
	by, err := b.RecordRefsByTrajectory()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for traj, refs := range by {
		s := ""
		for i := range refs.Len() {
			r := refs.At(i)
			s += fmt.Sprintf("%s@%d-%d ", r.ID, r.Steps.From, r.Steps.To)
		}
		got[traj] = s
	}
	want := map[string]string{"traj_a": "mem_t1@2-4 mem_t2@0-0 ", "traj_b": "mem_t3@7-7 "}
	if len(got) != len(want) || got["traj_a"] != want["traj_a"] || got["traj_b"] != want["traj_b"] {
		t.Fatalf("refs by trajectory %q, want %q", got, want)
	}
}

// testStandings: a record's standing read without the record is what the
// record says (status, category, priority, confidence, suspect); ids the
// bank does not hold are left out.
func testStandings(t *testing.T, b Store) {
	Fixture(t, b)
	must(t, b.PutRecords([]review.Record{{ID: "mem_p", Lemma: "prioritised", Category: review.Warning, Confidence: 0.25, Priority: 3}}, "test", "fixture"))
	must(t, b.SetCheckResults([]review.CheckResult{{RecordID: "mem_a", Version: 1, Index: 0, Env: "shop", Input: "SELECT 2", Verdict: probe.FailsNow}}))
	ids := []string{"mem_a", "mem_b", "mem_p", "mem_absent"}
	got, err := b.RecordStandings(ids)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got["mem_absent"]; ok || len(got) != 3 {
		t.Fatalf("standings of %v: %+v", ids, got)
	}
	for _, id := range ids[:3] {
		r := record(t, b, id)
		if want := review.StandingOf(r); got[id] != want {
			t.Errorf("%s: standing %+v, the record says %+v", id, got[id], want)
		}
	}
	if !got["mem_a"].Suspect || got["mem_p"].Priority != 3 || got["mem_p"].Confidence != 0.25 || got["mem_p"].Category != review.Warning {
		t.Errorf("standings %+v", got)
	}
}
