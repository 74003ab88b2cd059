// Package storetest is the conformance suite every bank store must
// pass (the SQLite store and the PostgreSQL store; the service's own
// Store is what it runs them through): records and their versions, every decision verb, conflicts, undo,
// the change sequence, writes that validate everything first, probe runs
// and evidence, check results, trajectories and the retrieval log, and
// (Durability) decisions that survive kill -9 of the process that made
// them. The SQLite store runs it from review's tests; a PostgreSQL store
// runs the same suite.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

// Store is what the suite exercises of a bank store: every read and write
// the application service relies on, each checked for its contract here.
type Store interface {
	Config() (review.Config, error)
	SaveConfig(c review.Config) error
	Record(id string) (*review.Record, error)
	Records(f review.RecordFilter) ([]review.Record, error)
	History(id string) ([]review.Version, error)
	RecordVersion(id string, v int) (*review.Record, error)
	PutRecords(recs []review.Record, actor, reason string) error
	Proposal(id string) (*review.Proposal, error)
	Proposals() ([]review.Proposal, error)
	Queue() ([]review.Proposal, error)
	Conflicts(p *review.Proposal) (*review.ConflictError, error)
	AddProposals(ps []review.Proposal, runs []review.ProbeRun) error
	Decide(ctx context.Context, req review.DecideRequest) (*review.Decision, error)
	DecideRecords(ctx context.Context, req review.RecordRequest) (*review.Decision, error)
	Undo(ctx context.Context, decisionID, operator, note string) (*review.Decision, error)
	Decision(id string) (*review.Decision, error)
	Decisions() ([]review.Decision, error)
	ProposalDecisions(proposalID string) ([]review.Decision, error)
	Trajectory(id string) (*review.Trajectory, error)
	Trajectories() ([]review.Trajectory, error)
	PutTrajectories(trs []review.Trajectory) error
	AddTrajectories(trs []review.Trajectory) error
	RetrievedBy(recordID string) ([]review.TrajectoryUse, error)
	LogRetrieval(r review.Retrieval) error
	Retrievals(since int64, limit int) ([]review.Retrieval, error)
	SaveProbeRun(run review.ProbeRun) (string, error)
	ProbeRun(id string) (*review.ProbeRun, error)
	Attach(runID, kind, id, actor string) error
	AttachRun(run review.ProbeRun, kind, id, actor string) (string, error)
	ProbeRunsFor(kind, id string) ([]review.ProbeRun, error)
	RecordRefsByTrajectory() (map[string]*review.TrajectoryRefs, error)
	RecordStandings(ids []string) (map[string]review.RecordStanding, error)
	SetCheckResults(results []review.CheckResult) error
	CheckResults(recordID string) ([]review.CheckResult, error)
	review.ClaimStore
	LastSeq() (int64, error)
	ChangesSince(seq int64) ([]review.Change, error)
	Now() time.Time
	Close() error
}

// Opener returns a fresh, empty bank for one test; the suite closes it.
type Opener func(t *testing.T) Store

// Run runs the whole suite, each case on a bank of its own, the cases in
// parallel.
func Run(t *testing.T, open Opener) {
	cases := []struct {
		name string
		fn   func(t *testing.T, b Store)
	}{
		{"RecordsAndVersions", testRecords},
		{"PutRecordsValidatesFirst", testPutValidates},
		{"PutRecordsMany", testPutMany},
		{"AddProposalsValidatesFirst", testAddValidates},
		{"Accept", testAccept},
		{"AcceptUpdate", testAcceptUpdate},
		{"NarrowAndEdit", testNarrowEdit},
		{"Merge", testMerge},
		{"Delete", testDelete},
		{"RejectAndDefer", testRejectDefer},
		{"DecideRecords", testDecideRecords},
		{"StaleTargetConflicts", testStaleConflict},
		{"DecidedTwiceConflicts", testDecidedTwice},
		{"RacingDecisionsOneWins", testRace},
		{"Undo", testUndo},
		{"ChangeSequence", testChanges},
		{"ProbeRunsAndAttach", testProbeRuns},
		{"LiveRunBaselines", testLiveBaseline},
		{"CheckResults", testCheckResults},
		{"TrajectoriesAndRetrievals", testTrajectories},
		{"AddTrajectoriesNeverReplaces", testAddTrajectories},
		{"ProposalsOnRetiredRecords", testRetiredTargets},
		{"Config", testConfig},
		{"BulkReads", testBulkReads},
		{"TrajectoryRefs", testTrajectoryRefs},
		{"Standings", testStandings},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := open(t)
			t.Cleanup(func() { b.Close() })
			c.fn(t, b)
		})
	}
}

var ctx = context.Background()

// Fixture writes the three records every case starts from: mem_a, mem_b,
// mem_c, all active, version 1, env shop.
func Fixture(t testing.TB, b Store) {
	t.Helper()
	recs := []review.Record{
		{ID: "mem_a", Lemma: "reviews join items on fdbk_g1.ref_id = items_g1.item_id", Category: review.Relation, Scope: review.Scope{Env: "shop", Tags: []string{"g1"}}, Confidence: 0.9},
		{ID: "mem_b", Lemma: "prices are stored in cents", Category: review.Convention, Scope: review.Scope{Env: "shop"}, Confidence: 0.8},
		{ID: "mem_c", Lemma: "prices are integers in cents in every items table", Category: review.Convention, Scope: review.Scope{Env: "shop"}, Confidence: 0.7},
	}
	if err := b.PutRecords(recs, "test", "fixture"); err != nil {
		t.Fatal(err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func record(t testing.TB, b Store, id string) *review.Record {
	t.Helper()
	r, err := b.Record(id)
	if err != nil {
		t.Fatalf("record %s: %v", id, err)
	}
	return r
}

func propose(t testing.TB, b Store, ps ...review.Proposal) {
	t.Helper()
	must(t, b.AddProposals(ps, nil))
}

func status(t testing.TB, b Store, id string) review.ProposalStatus {
	t.Helper()
	p, err := b.Proposal(id)
	if err != nil {
		t.Fatalf("proposal %s: %v", id, err)
	}
	return p.Status
}

func newRec(lemma string) *review.Record {
	return &review.Record{Lemma: lemma, Category: review.Fact, Scope: review.Scope{Env: "shop"}, Confidence: 0.6}
}

func testRecords(t *testing.T, b Store) {
	Fixture(t, b)
	r := record(t, b, "mem_b")
	if r.Version != 1 || r.Status != review.Active || r.Lemma != "prices are stored in cents" {
		t.Fatalf("mem_b = %+v", r)
	}
	if _, err := b.Record("mem_zz"); !errors.Is(err, review.ErrNotFound) {
		t.Fatalf("unknown record: %v, want ErrNotFound", err)
	}
	all, err := b.Records(review.RecordFilter{})
	must(t, err)
	if len(all) != 3 {
		t.Fatalf("Records = %d, want 3", len(all))
	}
	edit := *r
	edit.Lemma = "prices are stored in integer cents"
	_, err = b.DecideRecords(ctx, review.RecordRequest{Verb: review.Edit, Record: &edit, Operator: "ana", Note: "clearer"})
	must(t, err)
	h, err := b.History("mem_b")
	must(t, err)
	if len(h) != 2 || h[0].Record.Version != 1 || h[1].Record.Version != 2 || h[1].Actor != "ana" || h[1].Record.Lemma != edit.Lemma {
		t.Fatalf("history = %+v", h)
	}
	v1, err := b.RecordVersion("mem_b", 1)
	must(t, err)
	if v1.Lemma != "prices are stored in cents" {
		t.Fatalf("v1 = %q", v1.Lemma)
	}
	if _, err := b.RecordVersion("mem_b", 9); err == nil {
		t.Fatal("version 9 of mem_b was found")
	}
	if now := record(t, b, "mem_b"); now.Version != 2 || now.Lemma != edit.Lemma {
		t.Fatalf("mem_b now = v%d %q", now.Version, now.Lemma)
	}
}

func testPutValidates(t *testing.T, b Store) {
	Fixture(t, b)
	seq, _ := b.LastSeq()
	bad := []review.Record{
		{ID: "mem_new", Lemma: "fine", Category: review.Fact, Confidence: 0.5},
		{ID: "mem_bad", Lemma: "", Category: review.Fact, Confidence: 0.5},
	}
	if err := b.PutRecords(bad, "test", "import"); err == nil {
		t.Fatal("PutRecords with an empty lemma succeeded")
	}
	if _, err := b.Record("mem_new"); !errors.Is(err, review.ErrNotFound) {
		t.Fatalf("a valid record of a rejected batch was written: %v", err)
	}
	if s, _ := b.LastSeq(); s != seq {
		t.Fatalf("a rejected batch moved the change sequence %d → %d", seq, s)
	}
}

// testPutMany imports more records than one multi-row INSERT holds: each
// is stored at version 1, the change feed names them once each in the
// batch's order, and a batch naming an id the bank has, or one id twice,
// fails naming it and writes nothing.
func testPutMany(t *testing.T, b Store) {
	seq, _ := b.LastSeq()
	var recs []review.Record
	for i := range 450 {
		recs = append(recs, review.Record{ID: fmt.Sprintf("mem_%03d", 449-i), Lemma: fmt.Sprintf("lemma %d", i),
			Category: review.Fact, Confidence: 0.5, Scope: review.Scope{Env: "docs"}})
	}
	if err := b.PutRecords(recs, "test", "import"); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 199, 200, 449} {
		r, err := b.Record(recs[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		if r.Version != 1 || r.Lemma != recs[i].Lemma || r.Scope.Env != "docs" || r.Status != review.Active {
			t.Fatalf("%s = v%d %q env %q status %q", r.ID, r.Version, r.Lemma, r.Scope.Env, r.Status)
		}
	}
	changes, err := b.ChangesSince(seq)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != len(recs) {
		t.Fatalf("%d changes for %d records", len(changes), len(recs))
	}
	for i, c := range changes {
		if c.Kind != "record" || c.ID != recs[i].ID || (i > 0 && c.Seq <= changes[i-1].Seq) {
			t.Fatalf("change %d = %+v, want record %s after seq %d", i, c, recs[i].ID, changes[max(i-1, 0)].Seq)
		}
	}
	seq, _ = b.LastSeq()
	for _, bad := range [][]review.Record{
		{{ID: "mem_new1", Lemma: "x", Category: review.Fact}, {ID: "mem_300", Lemma: "again", Category: review.Fact}},
		{{ID: "mem_new2", Lemma: "x", Category: review.Fact}, {ID: "mem_new2", Lemma: "twice", Category: review.Fact}},
	} {
		err := b.PutRecords(bad, "test", "import")
		if err == nil || !strings.Contains(err.Error(), bad[1].ID) {
			t.Fatalf("PutRecords(%s, %s) = %v, want an error naming %s", bad[0].ID, bad[1].ID, err, bad[1].ID)
		}
		if _, err := b.Record(bad[0].ID); !errors.Is(err, review.ErrNotFound) {
			t.Fatalf("a rejected batch wrote %s: %v", bad[0].ID, err)
		}
		if r, _ := b.Record("mem_300"); r == nil || r.Version != 1 || r.Lemma == "again" {
			t.Fatalf("a rejected batch changed mem_300: %+v", r)
		}
	}
	if s, _ := b.LastSeq(); s != seq {
		t.Fatalf("rejected batches moved the change sequence %d → %d", seq, s)
	}
}

func testAddValidates(t *testing.T, b Store) {
	Fixture(t, b)
	err := b.AddProposals([]review.Proposal{
		{ID: "p_ok", Op: review.OpCreate, Record: newRec("ratings are 1-5")},
		{ID: "p_bad", Op: review.OpUpdate, Targets: []review.Target{{ID: "mem_missing"}}, Record: newRec("x")},
	}, nil)
	if err == nil {
		t.Fatal("AddProposals with a missing target succeeded")
	}
	if _, err := b.Proposal("p_ok"); !errors.Is(err, review.ErrNotFound) {
		t.Fatalf("the valid proposal of a rejected batch was queued: %v", err)
	}
	if err := b.AddProposals([]review.Proposal{{ID: "p_op", Op: "explode"}}, nil); err == nil {
		t.Fatal("AddProposals with an unknown op succeeded")
	}
	q, err := b.Queue()
	must(t, err)
	if len(q) != 0 {
		t.Fatalf("queue after rejected batches = %d proposals", len(q))
	}
	// Ids are assigned when empty, target versions filled in.
	ps := []review.Proposal{{Op: review.OpUpdate, Targets: []review.Target{{ID: "mem_a"}}, Record: newRec("y")}}
	must(t, b.AddProposals(ps, nil))
	p, err := b.Proposal(ps[0].ID)
	if err != nil || ps[0].ID == "" || p.Targets[0].Version != 1 || p.Status != review.Pending {
		t.Fatalf("assigned proposal = %+v, %v", p, err)
	}
}

func testAccept(t *testing.T, b Store) {
	Fixture(t, b)
	propose(t, b, review.Proposal{ID: "p1", Op: review.OpCreate, Rationale: "seen twice", Record: newRec("ratings are 1-5 integers")})
	d, err := b.Decide(ctx, review.DecideRequest{Proposal: "p1", Verb: review.Accept, Operator: "ana", Note: "ok"})
	must(t, err)
	if d.Verb != review.Accept || d.Operator != "ana" || d.Record == nil || len(d.Changes) != 1 || d.Changes[0].Before != 0 || d.Changes[0].After != 1 {
		t.Fatalf("decision = %+v", d)
	}
	r := record(t, b, d.Record.ID)
	if r.Lemma != "ratings are 1-5 integers" || r.Status != review.Active {
		t.Fatalf("created record = %+v", r)
	}
	if st := status(t, b, "p1"); st == review.Pending || st.Open() {
		t.Fatalf("accepted proposal is still %s", st)
	}
	got, err := b.Decision(d.ID)
	if err != nil || got.Proposal != "p1" || got.Note != "ok" {
		t.Fatalf("stored decision = %+v, %v", got, err)
	}
	ds, err := b.Decisions()
	must(t, err)
	if len(ds) != 1 || ds[0].ID != d.ID {
		t.Fatalf("Decisions = %+v", ds)
	}
}

func testAcceptUpdate(t *testing.T, b Store) {
	Fixture(t, b)
	upd := *record(t, b, "mem_b")
	upd.Lemma = "prices are stored in cents, as integers"
	propose(t, b, review.Proposal{ID: "p1", Op: review.OpUpdate, Targets: []review.Target{{ID: "mem_b", Version: 1}}, Record: &upd})
	_, err := b.Decide(ctx, review.DecideRequest{Proposal: "p1", Verb: review.Accept, Operator: "ana"})
	must(t, err)
	if r := record(t, b, "mem_b"); r.Version != 2 || r.Lemma != upd.Lemma {
		t.Fatalf("mem_b after update = v%d %q", r.Version, r.Lemma)
	}
}

func testNarrowEdit(t *testing.T, b Store) {
	Fixture(t, b)
	upd := *record(t, b, "mem_a")
	propose(t, b,
		review.Proposal{ID: "pn", Op: review.OpNarrow, Targets: []review.Target{{ID: "mem_a", Version: 1}}, Record: &upd},
		review.Proposal{ID: "pe", Op: review.OpCreate, Record: newRec("draft lemma")})
	narrowed := upd
	narrowed.Scope.Tags = []string{"g1", "reviews"}
	narrowed.Trigger = "when joining reviews"
	_, err := b.Decide(ctx, review.DecideRequest{Proposal: "pn", Verb: review.Narrow, Record: &narrowed, Operator: "ana"})
	must(t, err)
	r := record(t, b, "mem_a")
	if r.Version != 2 || r.Trigger != "when joining reviews" || !slices.Equal(r.Scope.Tags, []string{"g1", "reviews"}) {
		t.Fatalf("narrowed mem_a = %+v", r)
	}
	edited := *newRec("the edited lemma")
	d, err := b.Decide(ctx, review.DecideRequest{Proposal: "pe", Verb: review.Edit, Record: &edited, Operator: "bo"})
	must(t, err)
	if r := record(t, b, d.Record.ID); r.Lemma != "the edited lemma" {
		t.Fatalf("edited record lemma = %q", r.Lemma)
	}
}

func testMerge(t *testing.T, b Store) {
	Fixture(t, b)
	merged := *record(t, b, "mem_b")
	merged.Lemma = "prices are integer cents in every items table"
	propose(t, b, review.Proposal{ID: "pm", Op: review.OpMerge,
		Targets: []review.Target{{ID: "mem_b", Version: 1}, {ID: "mem_c", Version: 1}}, Record: &merged})
	srcB, srcC := *record(t, b, "mem_b"), *record(t, b, "mem_c")
	d, err := b.Decide(ctx, review.DecideRequest{Proposal: "pm", Verb: review.Accept, Operator: "ana"})
	must(t, err)
	survivor := d.Record.ID
	s := record(t, b, survivor)
	// Accepted as proposed, the merge keeps what the sources say that the
	// proposal's record does not (review.FoldSources), its own lemma first.
	if want := review.FoldSources(merged, srcB, srcC).Lemma; s.Lemma != want || !strings.HasPrefix(s.Lemma, merged.Lemma) || s.Status != review.Active {
		t.Fatalf("survivor %s = %+v, want lemma %q", survivor, s, want)
	}
	for _, id := range []string{"mem_b", "mem_c"} {
		if id == survivor {
			continue
		}
		r := record(t, b, id)
		if r.Status != review.Retired || r.Provenance.MergedInto != survivor {
			t.Fatalf("source %s after merge: status %s merged_into %q, want retired into %s", id, r.Status, r.Provenance.MergedInto, survivor)
		}
	}
}

func testDelete(t *testing.T, b Store) {
	Fixture(t, b)
	propose(t, b, review.Proposal{ID: "pd", Op: review.OpDelete, Targets: []review.Target{{ID: "mem_c", Version: 1}}, Rationale: "duplicate"})
	_, err := b.Decide(ctx, review.DecideRequest{Proposal: "pd", Verb: review.Delete, Operator: "ana"})
	must(t, err)
	if r := record(t, b, "mem_c"); r.Status != review.Retired || r.Version != 2 {
		t.Fatalf("deleted mem_c = %s v%d, want retired v2", r.Status, r.Version)
	}
	active, err := b.Records(review.RecordFilter{Status: review.Active})
	must(t, err)
	if len(active) != 2 {
		t.Fatalf("active records after delete = %d, want 2", len(active))
	}
}

func testRejectDefer(t *testing.T, b Store) {
	Fixture(t, b)
	propose(t, b, review.Proposal{ID: "pr", Op: review.OpCreate, Record: newRec("wrong")},
		review.Proposal{ID: "pf", Op: review.OpCreate, Record: newRec("later")})
	seqRecords, _ := b.Records(review.RecordFilter{})
	_, err := b.Decide(ctx, review.DecideRequest{Proposal: "pr", Verb: review.Reject, Operator: "ana", Note: "not true"})
	must(t, err)
	_, err = b.Decide(ctx, review.DecideRequest{Proposal: "pf", Verb: review.Defer, Operator: "ana"})
	must(t, err)
	if st := status(t, b, "pr"); st.Open() {
		t.Fatalf("rejected proposal is %s", st)
	}
	if st := status(t, b, "pf"); st != review.Deferred {
		t.Fatalf("deferred proposal is %s", st)
	}
	q, err := b.Queue()
	must(t, err)
	if len(q) != 1 || q[0].ID != "pf" {
		t.Fatalf("queue = %v, want only the deferred pf", ids(q))
	}
	after, _ := b.Records(review.RecordFilter{})
	if len(after) != len(seqRecords) {
		t.Fatalf("reject/defer changed the records: %d → %d", len(seqRecords), len(after))
	}
}

func ids(ps []review.Proposal) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

func testDecideRecords(t *testing.T, b Store) {
	Fixture(t, b)
	_, err := b.DecideRecords(ctx, review.RecordRequest{Verb: review.Delete, IDs: []string{"mem_a"}, Seen: map[string]int{"mem_a": 1}, Operator: "ana"})
	must(t, err)
	if r := record(t, b, "mem_a"); r.Status != review.Retired {
		t.Fatalf("mem_a after delete = %s", r.Status)
	}
	// An edit of a version the operator no longer sees conflicts.
	stale := *record(t, b, "mem_b")
	stale.Version = 1
	_, err = b.DecideRecords(ctx, review.RecordRequest{Verb: review.Edit, Record: &stale, Operator: "bo"})
	must(t, err)
	again := stale
	again.Lemma = "a second edit from a stale screen"
	_, err = b.DecideRecords(ctx, review.RecordRequest{Verb: review.Edit, Record: &again, Operator: "cy"})
	var ce *review.ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("edit of stale v1 = %v, want *ConflictError", err)
	}
	if r := record(t, b, "mem_b"); r.Lemma == again.Lemma {
		t.Fatal("a conflicting edit was applied")
	}
}

func testStaleConflict(t *testing.T, b Store) {
	Fixture(t, b)
	upd := *record(t, b, "mem_b")
	upd.Lemma = "proposal's version"
	propose(t, b, review.Proposal{ID: "p1", Op: review.OpUpdate, Targets: []review.Target{{ID: "mem_b", Version: 1}}, Record: &upd})
	edit := *record(t, b, "mem_b")
	edit.Lemma = "someone else's edit"
	_, err := b.DecideRecords(ctx, review.RecordRequest{Verb: review.Edit, Record: &edit, Operator: "bo"})
	must(t, err)
	p, err := b.Proposal("p1")
	must(t, err)
	c, err := b.Conflicts(p)
	must(t, err)
	if c == nil {
		t.Fatal("Conflicts found nothing for a proposal whose target moved on")
	}
	seq, _ := b.LastSeq()
	_, err = b.Decide(ctx, review.DecideRequest{Proposal: "p1", Verb: review.Accept, Operator: "ana"})
	var ce *review.ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("accept over a changed target = %v, want *ConflictError", err)
	}
	if r := record(t, b, "mem_b"); r.Lemma != "someone else's edit" || r.Version != 2 {
		t.Fatalf("mem_b after a refused accept = v%d %q", r.Version, r.Lemma)
	}
	if s, _ := b.LastSeq(); s != seq {
		t.Fatalf("a refused decision moved the change sequence %d → %d", seq, s)
	}
	if st := status(t, b, "p1"); st != review.Pending {
		t.Fatalf("proposal after a refused accept is %s", st)
	}
}

func testDecidedTwice(t *testing.T, b Store) {
	Fixture(t, b)
	propose(t, b, review.Proposal{ID: "p1", Op: review.OpCreate, Record: newRec("once")})
	_, err := b.Decide(ctx, review.DecideRequest{Proposal: "p1", Verb: review.Reject, Operator: "ana"})
	must(t, err)
	_, err = b.Decide(ctx, review.DecideRequest{Proposal: "p1", Verb: review.Accept, Operator: "bo"})
	var ce *review.ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("accept of a rejected proposal = %v, want *ConflictError", err)
	}
	active, _ := b.Records(review.RecordFilter{Status: review.Active})
	if len(active) != 3 {
		t.Fatalf("a refused accept created a record: %d active", len(active))
	}
}

func testRace(t *testing.T, b Store) {
	Fixture(t, b)
	propose(t, b, review.Proposal{ID: "p1", Op: review.OpCreate, Record: newRec("contested")})
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = b.Decide(ctx, review.DecideRequest{Proposal: "p1", Verb: review.Accept, Operator: fmt.Sprintf("op%d", i)})
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		var ce *review.ConflictError
		switch {
		case err == nil:
			won++
		case !errors.As(err, &ce):
			t.Errorf("a losing decision failed with %v, want *ConflictError", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d of %d racing accepts won, want exactly 1", won, n)
	}
	ds, _ := b.Decisions()
	if len(ds) != 1 {
		t.Fatalf("%d decisions stored, want 1", len(ds))
	}
	active, _ := b.Records(review.RecordFilter{Status: review.Active})
	if len(active) != 4 {
		t.Fatalf("%d active records, want 4 (one created)", len(active))
	}
}

func testUndo(t *testing.T, b Store) {
	Fixture(t, b)
	propose(t, b, review.Proposal{ID: "pd", Op: review.OpDelete, Targets: []review.Target{{ID: "mem_c", Version: 1}}})
	d, err := b.Decide(ctx, review.DecideRequest{Proposal: "pd", Verb: review.Delete, Operator: "ana"})
	must(t, err)
	u, err := b.Undo(ctx, "", "ana", "oops")
	must(t, err)
	if u.Undoes != d.ID || u.Verb != review.Undo {
		t.Fatalf("undo = %+v, want undoing %s", u, d.ID)
	}
	r := record(t, b, "mem_c")
	if r.Status != review.Active || r.Version != 3 {
		t.Fatalf("mem_c after undo = %s v%d, want active v3 (a new version)", r.Status, r.Version)
	}
	if st := status(t, b, "pd"); st != review.Pending {
		t.Fatalf("proposal after undo = %s, want pending", st)
	}
	orig, err := b.Decision(d.ID)
	if err != nil || orig.UndoneBy != u.ID {
		t.Fatalf("undone decision = %+v, %v", orig, err)
	}
	pd, err := b.ProposalDecisions("pd")
	must(t, err)
	if len(pd) != 2 || pd[0].ID != d.ID || pd[1].ID != u.ID {
		t.Fatalf("decisions on pd = %+v, want the delete then its undo", pd)
	}
	if none, err := b.ProposalDecisions("p_never"); err != nil || len(none) != 0 {
		t.Fatalf("decisions on an unknown proposal = %+v, %v", none, err)
	}
	if _, err := b.Undo(ctx, d.ID, "ana", ""); err == nil {
		t.Fatal("undoing a decision twice succeeded")
	}
	// Undo of an accept-create retires the record it created.
	propose(t, b, review.Proposal{ID: "pc", Op: review.OpCreate, Record: newRec("new fact")})
	dc, err := b.Decide(ctx, review.DecideRequest{Proposal: "pc", Verb: review.Accept, Operator: "ana"})
	must(t, err)
	_, err = b.Undo(ctx, dc.ID, "ana", "")
	must(t, err)
	if r := record(t, b, dc.Record.ID); r.Status != review.Retired {
		t.Fatalf("record created by an undone accept is %s", r.Status)
	}
}

func testChanges(t *testing.T, b Store) {
	s0, err := b.LastSeq()
	must(t, err)
	Fixture(t, b)
	s1, _ := b.LastSeq()
	if s1 <= s0 {
		t.Fatalf("LastSeq did not move on a write: %d → %d", s0, s1)
	}
	cs, err := b.ChangesSince(s0)
	must(t, err)
	var got []string
	for i, c := range cs {
		if i > 0 && c.Seq <= cs[i-1].Seq {
			t.Fatalf("changes not ascending: %+v", cs)
		}
		if c.Seq <= s0 || c.Seq > s1 {
			t.Fatalf("change %+v outside (%d, %d]", c, s0, s1)
		}
		got = append(got, c.Kind+":"+c.ID)
	}
	slices.Sort(got)
	if want := []string{"record:mem_a", "record:mem_b", "record:mem_c"}; !slices.Equal(got, want) {
		t.Fatalf("changes = %v, want %v", got, want)
	}
	propose(t, b, review.Proposal{ID: "p1", Op: review.OpDelete, Targets: []review.Target{{ID: "mem_a", Version: 1}}})
	_, err = b.Decide(ctx, review.DecideRequest{Proposal: "p1", Verb: review.Delete, Operator: "ana"})
	must(t, err)
	cs, err = b.ChangesSince(s1)
	must(t, err)
	seen := map[string]bool{}
	for _, c := range cs {
		if seen[c.Kind+":"+c.ID] {
			t.Fatalf("ChangesSince lists %s:%s twice", c.Kind, c.ID)
		}
		seen[c.Kind+":"+c.ID] = true
	}
	if !seen["record:mem_a"] || !seen["proposal:p1"] || seen["record:mem_b"] {
		t.Fatalf("changes after a delete decision = %v", seen)
	}
	last, _ := b.LastSeq()
	if cs[len(cs)-1].Seq != last {
		t.Fatalf("last change %d, LastSeq %d", cs[len(cs)-1].Seq, last)
	}
	if cs, _ := b.ChangesSince(last); len(cs) != 0 {
		t.Fatalf("ChangesSince(LastSeq) = %+v, want none", cs)
	}
}

func sampleRun(input string) review.ProbeRun {
	return review.ProbeRun{Result: probe.Result{Env: "shop", Kind: probe.KindSQL, Input: input}, Actor: "ana"}
}

func testProbeRuns(t *testing.T, b Store) {
	Fixture(t, b)
	propose(t, b, review.Proposal{ID: "p1", Op: review.OpCreate, Record: newRec("x")})
	id, err := b.SaveProbeRun(sampleRun("SELECT 1"))
	must(t, err)
	run, err := b.ProbeRun(id)
	if err != nil || run.Result.Input != "SELECT 1" {
		t.Fatalf("probe run %s = %+v, %v", id, run, err)
	}
	must(t, b.Attach(id, "proposal", "p1", "ana"))
	seq, _ := b.LastSeq()
	rid, err := b.AttachRun(sampleRun("SELECT 2"), "record", "mem_a", "bo")
	must(t, err)
	if s, _ := b.LastSeq(); s <= seq {
		t.Fatal("AttachRun did not move the change sequence (the record's evidence changed)")
	}
	runs, err := b.ProbeRunsFor("record", "mem_a")
	must(t, err)
	if len(runs) != 1 || runs[0].ID != rid || runs[0].Result.Input != "SELECT 2" {
		t.Fatalf("mem_a evidence = %+v", runs)
	}
	runs, err = b.ProbeRunsFor("proposal", "p1")
	must(t, err)
	if len(runs) != 1 || runs[0].ID != id {
		t.Fatalf("p1 evidence = %+v", runs)
	}
	// Attaching to nothing saves nothing: the run is not left behind.
	before, _ := b.LastSeq()
	if _, err := b.AttachRun(sampleRun("SELECT 3"), "record", "mem_missing", "bo"); err == nil {
		t.Fatal("AttachRun to a missing record succeeded")
	}
	if _, err := b.AttachRun(sampleRun("SELECT 3"), "galaxy", "mem_a", "bo"); err == nil {
		t.Fatal("AttachRun to an unknown kind succeeded")
	}
	if s, _ := b.LastSeq(); s != before {
		t.Fatalf("failed AttachRuns moved the change sequence %d → %d", before, s)
	}
	if err := b.Attach("run_missing", "record", "mem_a", "bo"); err == nil {
		t.Fatal("Attach of a missing run succeeded")
	}
}

func testCheckResults(t *testing.T, b Store) {
	Fixture(t, b)
	res := []review.CheckResult{
		{RecordID: "mem_a", Version: 1, Index: 0, Env: "shop", Input: "SELECT 1", Verdict: probe.Same},
		{RecordID: "mem_a", Version: 1, Index: 1, Env: "shop", Input: "SELECT 2", Verdict: probe.FailsNow},
	}
	must(t, b.SetCheckResults(res))
	got, err := b.CheckResults("mem_a")
	must(t, err)
	if len(got) != 2 || got[1].Verdict != probe.FailsNow {
		t.Fatalf("check results = %+v", got)
	}
	if r := record(t, b, "mem_a"); !r.Suspect {
		t.Fatal("a record with a failing check is not suspect")
	}
	must(t, b.SetCheckResults([]review.CheckResult{{RecordID: "mem_a", Version: 1, Index: 0, Verdict: probe.Same}}))
	if r := record(t, b, "mem_a"); r.Suspect {
		t.Fatal("a record whose checks hold again is still suspect")
	}
	// Results for a version the record has left are dropped.
	must(t, b.SetCheckResults([]review.CheckResult{{RecordID: "mem_a", Version: 7, Index: 0, Verdict: probe.FailsNow}}))
	if r := record(t, b, "mem_a"); r.Suspect {
		t.Fatal("results for another version were kept")
	}
}

func testTrajectories(t *testing.T, b Store) {
	Fixture(t, b)
	tr := review.Trajectory{ID: "traj_1", Task: "count reviewed items", Outcome: review.Outcome{Passed: true, Reward: 1}}
	must(t, b.PutTrajectories([]review.Trajectory{tr}))
	got, err := b.Trajectory("traj_1")
	if err != nil || got.Task != tr.Task || !got.Outcome.Passed {
		t.Fatalf("trajectory = %+v, %v", got, err)
	}
	all, err := b.Trajectories()
	must(t, err)
	if len(all) != 1 {
		t.Fatalf("Trajectories = %d", len(all))
	}
	must(t, b.LogRetrieval(review.Retrieval{Client: "cli", TaskID: "traj_1", Task: "count reviewed items", Records: []string{"mem_a", "mem_b"}}))
	must(t, b.LogRetrieval(review.Retrieval{Client: "mcp:agent", Task: "another task", Records: []string{"mem_c"}}))
	log, err := b.Retrievals(0, 0)
	must(t, err)
	if len(log) != 2 || log[0].Client != "cli" || log[1].Client != "mcp:agent" || log[0].Seq >= log[1].Seq || log[0].At.IsZero() {
		t.Fatalf("retrieval log = %+v", log)
	}
	if more, _ := b.Retrievals(log[0].Seq, 0); len(more) != 1 || more[0].Task != "another task" {
		t.Fatalf("retrievals after %d = %+v", log[0].Seq, more)
	}
	// A retrieval naming a stored run does not link it: anyone may name a
	// run's id (issue 23 item 21). A run links the records it retrieved
	// when it is stored.
	if used, _ := b.RetrievedBy("mem_a"); len(used) != 0 {
		t.Fatalf("a retrieval naming stored run traj_1 linked mem_a to %+v", used)
	}
	must(t, b.AddTrajectories([]review.Trajectory{{ID: "traj_2", Task: "t2", Outcome: review.Outcome{Passed: true, Reward: 1}, Retrieved: []string{"mem_a"}}}))
	used, err := b.RetrievedBy("mem_a")
	must(t, err)
	if len(used) != 1 || used[0].Trajectory != "traj_2" || !used[0].Outcome.Passed {
		t.Fatalf("mem_a retrieved by = %+v", used)
	}
	if used, _ := b.RetrievedBy("mem_c"); len(used) != 0 {
		t.Fatalf("a retrieval without a known task linked mem_c to %+v", used)
	}
}

func testConfig(t *testing.T, b Store) {
	c, err := b.Config()
	must(t, err)
	c.Envs = append(c.Envs, probe.Env{Name: "shop", Kind: probe.KindSQL, Path: "/data/shop.db"})
	must(t, b.SaveConfig(c))
	got, err := b.Config()
	must(t, err)
	e, ok := got.Env("shop")
	if !ok || e.Path != "/data/shop.db" || e.Kind != probe.KindSQL {
		t.Fatalf("env after SaveConfig = %+v (%v)", e, ok)
	}
}
