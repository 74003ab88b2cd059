package storetest

import (
	"errors"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
)

// testAddTrajectories: a run is stored new, never over another with its
// id, all or nothing (issue 23 item 16).
func testAddTrajectories(t *testing.T, b Store) {
	Fixture(t, b)
	must(t, b.AddTrajectories([]review.Trajectory{{ID: "run_x", Task: "the first run"}}))
	err := b.AddTrajectories([]review.Trajectory{{ID: "run_y", Task: "new"}, {ID: "run_x", Task: "the second run"}})
	var ee *review.ExistsError
	if !errors.As(err, &ee) || ee.ID != "run_x" || !errors.Is(err, review.ErrExists) {
		t.Fatalf("AddTrajectories over run_x = %v, want an ExistsError naming run_x", err)
	}
	if got, err := b.Trajectory("run_x"); err != nil || got.Task != "the first run" {
		t.Fatalf("run_x after a refused add = %+v, %v", got, err)
	}
	if _, err := b.Trajectory("run_y"); !errors.Is(err, review.ErrNotFound) {
		t.Fatalf("run_y was stored by a refused add: %v", err)
	}
	// The curator's packet still replaces a stored run.
	must(t, b.PutTrajectories([]review.Trajectory{{ID: "run_x", Task: "the first run", Distilled: &review.Packet{Task: "distilled"}}}))
	if got, err := b.Trajectory("run_x"); err != nil || got.Distilled == nil || got.Distilled.Task != "distilled" {
		t.Fatalf("run_x after PutTrajectories = %+v, %v", got, err)
	}
}

// testRetiredTargets: no proposal may change a retired record but a skip,
// checked where it is written, and accepting an update whose target was
// retired meanwhile is refused (issue 23 item 18).
func testRetiredTargets(t *testing.T, b Store) {
	Fixture(t, b)
	upd := func(id string, v int) review.Proposal {
		return review.Proposal{Op: review.OpUpdate, Targets: []review.Target{{ID: id, Version: v}}, Rationale: "r",
			Record: &review.Record{ID: id, Lemma: "an agent's new lemma", Category: review.Fact, Confidence: 0.5}}
	}
	// A proposal that saw version 2 of mem_b before it was retired at
	// version 2: what a proposal queued while its target was being retired
	// recorded before the store checked.
	stale := []review.Proposal{upd("mem_b", 2)}
	must(t, b.AddProposals(stale, nil))
	_, err := b.DecideRecords(ctx, review.RecordRequest{Verb: review.Delete, IDs: []string{"mem_a", "mem_b"}, Operator: "ana"})
	must(t, err)
	queue := func() int {
		q, err := b.Queue()
		must(t, err)
		return len(q)
	}
	queued := queue()
	for _, p := range []review.Proposal{upd("mem_a", 0), {Op: review.OpDelete, Targets: []review.Target{{ID: "mem_a"}}, Rationale: "r"}} {
		err := b.AddProposals([]review.Proposal{p}, nil)
		if err == nil || !strings.Contains(err.Error(), `record "mem_a" is retired`) {
			t.Fatalf("AddProposals(%s of retired mem_a) = %v, want a refusal", p.Op, err)
		}
	}
	must(t, b.AddProposals([]review.Proposal{{Op: review.OpSkip, Targets: []review.Target{{ID: "mem_a"}}, Rationale: "nothing to change"}}, nil))
	if n := queue(); n != queued+1 {
		t.Fatalf("queue %d after the refusals and a skip, want %d", n, queued+1)
	}

	for _, verb := range []review.Verb{review.Accept, review.Narrow, review.Edit} {
		_, err := b.Decide(ctx, review.DecideRequest{Proposal: stale[0].ID, Verb: verb, Operator: "ana"})
		if err == nil || !strings.Contains(err.Error(), "retired") {
			t.Fatalf("%s of an update of retired mem_b = %v, want a refusal", verb, err)
		}
	}
	if r := record(t, b, "mem_b"); r.Status != review.Retired || r.Lemma == "an agent's new lemma" || r.Version != 2 {
		t.Fatalf("mem_b after the refused accept = v%d %s %q", r.Version, r.Status, r.Lemma)
	}
	if p, err := b.Proposal(stale[0].ID); err != nil || !p.Status.Open() {
		t.Fatalf("the refused proposal = %+v, %v; want it open", p, err)
	}
	_, err = b.Decide(ctx, review.DecideRequest{Proposal: stale[0].ID, Verb: review.Reject, Operator: "ana"})
	must(t, err)
}
