package storetest

import (
	"fmt"
	"testing"

	"github.com/memreview/memreview/review"
)

// bulkReader is what the search index reads the items changed after its
// sequence with (index.Store's bulk reads): every backend has it.
type bulkReader interface {
	RecordsByID(ids []string) (map[string]*review.Record, error)
	ProposalsByID(ids []string) (map[string]*review.Proposal, error)
	TrajectoriesByID(ids []string) (map[string]*review.Trajectory, error)
	NewestChanges(seq int64, limit int) ([]review.Change, int, error)
}

// testBulkReads reads records, proposals and trajectories by id in bulk,
// over more ids than one query names (500), with ids the bank lacks.
func testBulkReads(t *testing.T, b Store) {
	br, ok := b.(bulkReader)
	if !ok {
		t.Fatalf("%T has no RecordsByID, ProposalsByID and TrajectoriesByID", b)
	}
	Fixture(t, b)
	var ps []review.Proposal
	var trs []review.Trajectory
	var pids, tids []string
	for i := range 501 {
		ps = append(ps, review.Proposal{Op: review.OpCreate, Rationale: fmt.Sprintf("bulk %d", i), Record: newRec(fmt.Sprintf("bulk fact %d", i))})
		trs = append(trs, review.Trajectory{ID: fmt.Sprintf("traj_b%03d", i), Task: fmt.Sprintf("task %d", i)})
		tids = append(tids, trs[i].ID)
	}
	propose(t, b, ps...)
	must(t, b.PutTrajectories(trs))
	all, err := b.Proposals()
	must(t, err)
	for _, p := range all {
		pids = append(pids, p.ID)
	}
	recs, err := br.RecordsByID([]string{"mem_a", "mem_c", "mem_none"})
	must(t, err)
	if len(recs) != 2 || recs["mem_a"] == nil || recs["mem_c"].Lemma != "prices are integers in cents in every items table" {
		t.Fatalf("RecordsByID = %v", recs)
	}
	props, err := br.ProposalsByID(append(pids, "prop_none"))
	must(t, err)
	if len(props) != 501 || props[pids[500]] == nil || props[pids[500]].Status != review.Pending || props[pids[500]].Record == nil {
		t.Fatalf("ProposalsByID: %d of 501 (last: %+v)", len(props), props[pids[500]])
	}
	tr, err := br.TrajectoriesByID(append(tids, "traj_none"))
	must(t, err)
	if len(tr) != 501 || tr["traj_b500"] == nil || tr["traj_b500"].Task != "task 500" {
		t.Fatalf("TrajectoriesByID: %d of 501", len(tr))
	}
	if none, err := br.ProposalsByID(nil); err != nil || len(none) != 0 {
		t.Fatalf("ProposalsByID(nil) = %v, %v", none, err)
	}
	// The newest changes: mem_z, written last, comes last.
	all2, err := b.ChangesSince(0)
	must(t, err)
	must(t, b.PutRecords([]review.Record{{ID: "mem_z", Lemma: "written last", Category: review.Fact, Confidence: 0.9}}, "test", "last"))
	newest, total, err := br.NewestChanges(0, 3)
	must(t, err)
	if total != len(all2)+1 || len(newest) != 3 || newest[2].ID != "mem_z" || newest[2].Kind != "record" ||
		newest[0].Seq >= newest[1].Seq || newest[1].Seq >= newest[2].Seq || newest[1] != all2[len(all2)-1] {
		t.Fatalf("NewestChanges(0, 3) = %v, %d; the feed ends %v (%d objects)", newest, total, all2[len(all2)-2:], len(all2))
	}
	last := newest[2].Seq
	if after, total, err := br.NewestChanges(last-1, 10); err != nil || total != 1 || len(after) != 1 || after[0].Seq != last {
		t.Fatalf("NewestChanges(%d, 10) = %v, %d, %v", last-1, after, total, err)
	}
}
