package storetest

import (
	"fmt"
	"testing"

	"github.com/memreview/memreview/review"
)

// bulkReader is what the search index reads the items changed after its
// sequence with (index.Source's bulk reads): every backend has it.
type bulkReader interface {
	RecordsByID(ids []string) (map[string]*review.Record, error)
	ProposalsByID(ids []string) (map[string]*review.Proposal, error)
	TrajectoriesByID(ids []string) (map[string]*review.Trajectory, error)
}

// testBulkReads reads records, proposals and trajectories by id in bulk,
// over more ids than one query names (500), with ids the bank lacks.
func testBulkReads(t *testing.T, b review.Backend) {
	br, ok := b.(bulkReader)
	if !ok {
		t.Fatalf("%T has no RecordsByID, ProposalsByID and TrajectoriesByID", b)
	}
	Fixture(t, b)
	var ps []review.Proposal
	var trs []review.Trajectory
	var pids, tids []string
	for i := range 520 {
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
	if len(props) != 520 || props[pids[519]] == nil || props[pids[519]].Status != review.Pending || props[pids[519]].Record == nil {
		t.Fatalf("ProposalsByID: %d of 520 (last: %+v)", len(props), props[pids[519]])
	}
	tr, err := br.TrajectoriesByID(append(tids, "traj_none"))
	must(t, err)
	if len(tr) != 520 || tr["traj_b519"] == nil || tr["traj_b519"].Task != "task 519" {
		t.Fatalf("TrajectoriesByID: %d of 520", len(tr))
	}
	if none, err := br.ProposalsByID(nil); err != nil || len(none) != 0 {
		t.Fatalf("ProposalsByID(nil) = %v, %v", none, err)
	}
}
