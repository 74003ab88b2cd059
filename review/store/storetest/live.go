package storetest

import (
	"testing"
	"time"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

// testLiveBaseline: live runs attached to a proposal (ProbeRun.Repeats) are
// read inside the decision: accept takes the latest one of each check that
// ran without an error as the check's Expect, lists it in the decision and
// the record's provenance, and says so in the version's reason; a check
// with no live run, or only a failed one, keeps its Expect.
func testLiveBaseline(t *testing.T, b Store) {
	Fixture(t, b)
	old := probe.Result{Env: "shop", Kind: probe.KindSQL, Columns: []string{"n"}, Rows: [][]any{{float64(1)}}}
	rec := newRec("shop has items")
	rec.Checks = []review.Check{
		{Env: "shop", Input: "SELECT count(*) AS n FROM items", Expect: old},
		{Env: "shop", Input: "SELECT count(*) AS n FROM fdbk", Expect: old},
		{Env: "shop", Input: "SELECT 1", Expect: old},
	}
	propose(t, b, review.Proposal{ID: "p1", Op: review.OpCreate, Record: rec})
	at := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	live := func(input string, n float64, failed bool, minute int) string {
		r := probe.Result{Env: "shop", Kind: probe.KindSQL, Input: input, Columns: []string{"n"}, Rows: [][]any{{n}}}
		if failed {
			r = probe.Result{Env: "shop", Kind: probe.KindSQL, Input: input, Error: "no such table"}
		}
		id, err := b.AttachRun(review.ProbeRun{Result: r, At: at.Add(time.Duration(minute) * time.Minute), Repeats: review.RepeatsCheck}, "proposal", "p1", "ana")
		must(t, err)
		return id
	}
	live(rec.Checks[0].Input, 41, false, 0)
	latest := live(rec.Checks[0].Input, 42, false, 1)
	live(rec.Checks[1].Input, 7, true, 2)
	// Evidence (no Repeats) is no baseline.
	_, err := b.AttachRun(review.ProbeRun{Result: probe.Result{Env: "shop", Input: rec.Checks[2].Input, Columns: []string{"x"}}}, "proposal", "p1", "ana")
	must(t, err)

	d, err := b.Decide(ctx, review.DecideRequest{Proposal: "p1", Verb: review.Accept, Operator: "ana", Note: "ok"})
	must(t, err)
	if len(d.Baselines) != 1 || d.Baselines[0] != (review.Baseline{Check: 1, Run: latest}) {
		t.Fatalf("baselines %+v, want check 1 from %s", d.Baselines, latest)
	}
	r := record(t, b, d.Record.ID)
	if got := r.Checks[0].Expect; len(got.Rows) != 1 || got.Rows[0][0] != float64(42) || got.Input != rec.Checks[0].Input {
		t.Fatalf("check 1 expects %+v, want the latest live run (42)", got)
	}
	for i := 1; i < 3; i++ {
		if got := r.Checks[i].Expect; got.Error != "" || len(got.Rows) != 1 || got.Rows[0][0] != float64(1) {
			t.Fatalf("check %d expects %+v, want the proposed one kept", i+1, got)
		}
	}
	if len(r.Provenance.ProbeRuns) != 1 || r.Provenance.ProbeRuns[0] != latest {
		t.Fatalf("provenance runs %v, want [%s]", r.Provenance.ProbeRuns, latest)
	}
	h, err := b.History(r.ID)
	must(t, err)
	if want := "ok; check 1 baseline from live run " + latest; h[0].Reason != want {
		t.Fatalf("reason %q, want %q", h[0].Reason, want)
	}
	if p, _ := b.Proposal("p1"); p.Record.Checks[0].Expect.Rows[0][0] != float64(1) {
		t.Fatal("the decision changed the proposal's own record")
	}
}
