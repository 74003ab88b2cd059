package app_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

// liveBank is a fresh copy of the sample world with one more proposal: a create whose
// record carries two checks on the shop database whose expected results are
// wrong (as a curator's probe before a migration would be), and no probe
// runs. It returns the bank's directory, the open service and the id.
func liveBank(t *testing.T) (string, *app.Service, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bank")
	sampleWorld.CopyTo(t, dir)
	svc := openAt(t, dir)
	wrong := probe.Result{Env: "shop", Kind: probe.KindSQL, Columns: []string{"n"}, Rows: [][]any{{float64(1)}}}
	p := review.Proposal{ID: "prop_live", Op: review.OpCreate, Rationale: "counted the catalogue",
		Record: &review.Record{Lemma: "shop counts items per table", Category: review.Fact, Confidence: 0.8,
			Scope: review.Scope{Env: "shop"}, Status: review.Active,
			Checks: []review.Check{
				{Env: "shop", Input: "SELECT COUNT(*) AS n FROM items_g1", Expect: wrong},
				{Env: "shop", Input: "SELECT COUNT(*) AS n FROM fdbk_g1", Expect: wrong},
			}}}
	if err := svc.Propose([]review.Proposal{p}, nil); err != nil {
		t.Fatal(err)
	}
	return dir, svc, p.ID
}

func openAt(t *testing.T, dir string) *app.Service {
	t.Helper()
	svc, err := app.Open(context.Background(), dir, app.Options{Operator: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A live run of a proposal is saved as a probe run attached to it, marked
// as a live run of its check; it is still there, as the latest live result
// of that check, after a defer and after the bank is opened again, and it
// is not taken for evidence (Reprobe does not run it again).
func TestLiveRunsSavedSurviveDefer(t *testing.T) {
	t.Parallel()
	dir, svc, pid := liveBank(t)
	ctx := context.Background()
	items, err := svc.LiveItems(pid)
	if err != nil || len(items) != 2 || items[0].Check != 1 || items[1].Check != 2 || items[0].Last != nil {
		t.Fatalf("live items before p = %+v, %v; want checks 1 and 2, never run", items, err)
	}
	lived, err := svc.RunLiveAll(ctx, pid, "")
	if err != nil || len(lived) != 2 {
		t.Fatalf("RunLiveAll = %+v, %v", lived, err)
	}
	for i, l := range lived {
		if l.Run.ID == "" || l.Run.Repeats != review.RepeatsCheck || l.Run.Actor != "ana" || l.Verdict != probe.Changed || !l.Run.Result.OK() {
			t.Fatalf("live run %d = %+v; want a saved, changed run of the check by ana", i, l)
		}
	}
	if _, err := svc.Decide(ctx, review.DecideRequest{Proposal: pid, Verb: review.Defer}); err != nil {
		t.Fatal(err)
	}
	svc.Close()
	svc = openAt(t, dir)
	items, err = svc.LiveItems(pid)
	if err != nil || len(items) != 2 {
		t.Fatalf("live items after defer and reopen = %+v, %v", items, err)
	}
	for i, it := range items {
		if it.Last == nil || it.Last.ID != lived[i].Run.ID || jsonOf(t, it.Last.Result) != jsonOf(t, lived[i].Run.Result) {
			t.Fatalf("check %d after defer and reopen: latest live run %+v, want %s", i+1, it.Last, lived[i].Run.ID)
		}
	}
}

// Accepting takes the latest live run of each check as its baseline: the
// record written expects exactly that run's output, its history says which
// run, a check never run live keeps the proposed Expect, and the record is
// not suspect at its first verify. (Before, the wrong Expect was kept and
// the first verify made the new record suspect.)
func TestAcceptTakesLiveBaseline(t *testing.T) {
	t.Parallel()
	_, svc, pid := liveBank(t)
	ctx := context.Background()
	items, _ := svc.LiveItems(pid)
	if _, err := svc.RunLive(ctx, pid, items[0], ""); err != nil {
		t.Fatal(err)
	}
	latest, err := svc.RunLive(ctx, pid, items[0], "") // the latest of two runs counts
	if err != nil {
		t.Fatal(err)
	}
	d, err := svc.Decide(ctx, review.DecideRequest{Proposal: pid, Verb: review.Accept, Note: "looks right"})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Baselines) != 1 || d.Baselines[0] != (review.Baseline{Check: 1, Run: latest.ID}) {
		t.Fatalf("decision baselines = %+v, want check 1 from %s", d.Baselines, latest.ID)
	}
	rec, err := svc.Record(d.Record.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := jsonOf(t, rec.Checks[0].Expect), jsonOf(t, latest.Result); got != want {
		t.Fatalf("check 1 expects %s, want the live run's %s", got, want)
	}
	p, _ := svc.Proposal(pid)
	if got, want := jsonOf(t, rec.Checks[1].Expect), jsonOf(t, p.Record.Checks[1].Expect); got != want {
		t.Fatalf("check 2 (never run live) expects %s, want the proposed %s", got, want)
	}
	if !strings.Contains(strings.Join(rec.Provenance.ProbeRuns, " "), latest.ID) {
		t.Fatalf("provenance runs %v lack the baseline run %s", rec.Provenance.ProbeRuns, latest.ID)
	}
	h, _ := svc.History(rec.ID)
	if want := "looks right; check 1 baseline from live run " + latest.ID; len(h) != 1 || h[0].Reason != want {
		t.Fatalf("history = %+v, want the reason %q", h, want)
	}
	v, err := svc.VerifyRecord(ctx, rec.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v.Results[0].Verdict != probe.Same {
		t.Fatalf("check 1 at the first verify: %s, want same", v.Results[0].Verdict)
	}
}

// An edit or narrow accept takes the baselines too, for the record the
// operator wrote.
func TestNarrowTakesLiveBaseline(t *testing.T) {
	t.Parallel()
	_, svc, pid := liveBank(t)
	ctx := context.Background()
	lived, err := svc.RunLiveAll(ctx, pid, "")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := svc.Proposal(pid)
	narrowed := p.Record.Clone()
	narrowed.Scope.Tags = []string{"g1"}
	d, err := svc.Decide(ctx, review.DecideRequest{Proposal: pid, Verb: review.Narrow, Record: &narrowed})
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := svc.Record(d.Record.ID)
	if len(rec.Scope.Tags) != 1 || len(d.Baselines) != 2 {
		t.Fatalf("narrowed record %+v, baselines %+v", rec, d.Baselines)
	}
	for i := range lived {
		if got, want := jsonOf(t, rec.Checks[i].Expect), jsonOf(t, lived[i].Run.Result); got != want {
			t.Fatalf("check %d expects %s, want %s", i+1, got, want)
		}
	}
	v, _ := svc.VerifyRecord(ctx, rec.ID, 0)
	if v.Held() != 2 {
		t.Fatalf("narrowed record: %d of 2 checks hold at the first verify", v.Held())
	}
}

// Rebaseline takes the last verify output of the failing checks as their
// new expectation in a new version, a person's edit with its note: the
// record is no longer suspect, and the next verify holds.
func TestRebaselineSuspectRecord(t *testing.T) {
	t.Parallel()
	dir, svc, pid := liveBank(t)
	ctx := context.Background()
	d, err := svc.Decide(ctx, review.DecideRequest{Proposal: pid, Verb: review.Accept}) // no live run: the wrong Expect stays
	if err != nil {
		t.Fatal(err)
	}
	id := d.Record.ID
	if v, _ := svc.VerifyRecord(ctx, id, 0); v.Held() != 0 {
		t.Fatalf("%d checks hold; the test wants both to fail", v.Held())
	}
	if r, _ := svc.Record(id); !r.Suspect {
		t.Fatal("the record is not suspect after a failing verify")
	}
	if _, err := svc.Rebaseline(ctx, id, 1, []int{3}, "", ""); err == nil || !strings.Contains(err.Error(), "no check 3") {
		t.Fatalf("rebaseline of check 3 of 2: %v", err)
	}
	results, _ := svc.CheckResults(id)
	rd, err := svc.Rebaseline(ctx, id, 1, []int{2}, "bo", "fdbk_g1 grew")
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := svc.Record(id)
	if rec.Version != 2 || rec.Suspect || rd.Operator != "bo" {
		t.Fatalf("after rebaseline: v%d suspect=%v by %s", rec.Version, rec.Suspect, rd.Operator)
	}
	if got, want := jsonOf(t, rec.Checks[1].Expect), jsonOf(t, results[1].Now); got != want {
		t.Fatalf("check 2 expects %s, want the verify's %s", got, want)
	}
	h, _ := svc.History(id)
	if want := "re-baseline check 2 from the verify of 2026"; !strings.HasPrefix(h[1].Reason, want) || !strings.HasSuffix(h[1].Reason, "; fdbk_g1 grew") || h[1].Op != "edit" || h[1].Actor != "bo" {
		t.Fatalf("history v2 = %+v", h[1])
	}
	// Check 1 was not re-baselined: it still fails; with no checks named,
	// every failing one is taken, and the version read is checked.
	if _, err := svc.Rebaseline(ctx, id, 1, nil, "", ""); err == nil {
		t.Fatal("rebaseline at v1 of a record now at v2 succeeded")
	}
	svc.VerifyRecord(ctx, id, 0)
	if _, err := svc.Rebaseline(ctx, id, 2, nil, "", ""); err != nil {
		t.Fatal(err)
	}
	svc.Close()
	svc = openAt(t, dir)
	if v, _ := svc.VerifyRecord(ctx, id, 0); v.Held() != 2 {
		t.Fatalf("after re-baselining both: %d of 2 hold", v.Held())
	}
	if _, err := svc.Rebaseline(ctx, id, 0, nil, "", ""); err == nil || !strings.Contains(err.Error(), "no check failed") {
		t.Fatalf("rebaseline of a record whose checks hold: %v", err)
	}
}
