package store

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
)

// fixedClock returns a clock that advances one second per call.
func fixedClock() func() time.Time {
	var mu sync.Mutex
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Second)
		return t
	}
}

func newBank(t *testing.T) *Store {
	t.Helper()
	s, err := Create(t.TempDir(), Options{Now: fixedClock()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	recs := []review.Record{
		{ID: "mem_a", Lemma: "reviews join items on fdbk_g1.ref_id = items_g1.item_id", Category: review.Relation, Scope: review.Scope{Env: "shop", Tags: []string{"g1"}}, Confidence: 0.9},
		{ID: "mem_b", Lemma: "prices are stored in cents", Category: review.Convention, Scope: review.Scope{Env: "shop"}, Confidence: 0.8},
		{ID: "mem_c", Lemma: "prices are integers in cents in every items table", Category: review.Convention, Scope: review.Scope{Env: "shop"}, Confidence: 0.7},
	}
	if err := s.PutRecords(recs, "test", "fixture"); err != nil {
		t.Fatal(err)
	}
	return s
}

func propose(t *testing.T, s *Store, ps ...review.Proposal) {
	t.Helper()
	if err := s.AddProposals(ps, nil); err != nil {
		t.Fatal(err)
	}
}

func TestCreateOpenRoundTrip(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	dir := s.Dir()
	s.Close()
	if _, err := Create(dir, Options{}); err == nil {
		t.Fatal("Create over an existing bank succeeded")
	}
	s2, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	r, err := s2.Record("mem_b")
	if err != nil || r.Lemma != "prices are stored in cents" || r.Version != 1 || r.Status != review.Active {
		t.Fatalf("record after reopen = %+v, %v", r, err)
	}
	if _, err := Open(t.TempDir(), Options{}); err == nil {
		t.Fatal("Open of an empty dir succeeded")
	}
	if _, err := s2.Record("nope"); !errors.Is(err, review.ErrNotFound) {
		t.Fatalf("unknown record: %v", err)
	}
}

func TestAcceptCreateThenUndo(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	ctx := context.Background()
	propose(t, s, review.Proposal{ID: "p1", Op: review.OpCreate, Rationale: "seen twice",
		Record: &review.Record{Lemma: "ratings are 1-5 integers", Category: review.Fact, Confidence: 0.6}})
	d, err := s.Decide(ctx, review.DecideRequest{Proposal: "p1", Verb: review.Accept, Operator: "ana", Note: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Record == nil || d.Record.ID == "" || len(d.Changes) != 1 || d.Changes[0].Before != 0 || d.Changes[0].After != 1 {
		t.Fatalf("decision = %+v", d)
	}
	newID := d.Record.ID
	p, _ := s.Proposal("p1")
	if p.Status != review.Accepted {
		t.Fatalf("status = %s", p.Status)
	}
	if _, err := s.Decide(ctx, review.DecideRequest{Proposal: "p1", Verb: review.Reject}); !isConflict(err) {
		t.Fatalf("deciding twice: %v", err)
	}
	u, err := s.Undo(ctx, "", "ana", "oops")
	if err != nil {
		t.Fatal(err)
	}
	if u.Undoes != d.ID {
		t.Fatalf("undo undid %s, want %s", u.Undoes, d.ID)
	}
	r, _ := s.Record(newID)
	if r.Status != review.Retired || r.Version != 2 {
		t.Fatalf("created record after undo = %+v", r)
	}
	p, _ = s.Proposal("p1")
	if p.Status != review.Pending {
		t.Fatalf("proposal after undo = %s", p.Status)
	}
	h, _ := s.History(newID)
	if len(h) != 2 || h[0].Op != "create" || h[1].Op != "undo" || h[1].Actor != "ana" {
		t.Fatalf("history = %+v", h)
	}
	ds, _ := s.Decisions()
	if len(ds) != 2 || ds[0].UndoneBy != u.ID {
		t.Fatalf("decisions = %+v", ds)
	}
	if _, err := s.Undo(ctx, "", "ana", ""); err == nil {
		t.Fatal("undo with nothing left to undo succeeded")
	}
}

func isConflict(err error) bool {
	var ce *review.ConflictError
	return errors.As(err, &ce)
}

func TestNarrowAndConflict(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	ctx := context.Background()
	rec := review.Record{Lemma: "reviews join items on ref_id (g1 only)", Category: review.Relation, Scope: review.Scope{Env: "shop", Tags: []string{"g1"}}, Confidence: 0.9}
	propose(t, s,
		review.Proposal{ID: "p1", Op: review.OpNarrow, Targets: []review.Target{{ID: "mem_a"}}, Record: &rec},
		review.Proposal{ID: "p2", Op: review.OpUpdate, Targets: []review.Target{{ID: "mem_a"}}, Record: &rec})
	narrowed := rec
	narrowed.Scope.Tags = []string{"g1", "office"}
	if _, err := s.Decide(ctx, review.DecideRequest{Proposal: "p1", Verb: review.Narrow, Record: &narrowed, Operator: "ana"}); err != nil {
		t.Fatal(err)
	}
	r, _ := s.Record("mem_a")
	if r.Version != 2 || len(r.Scope.Tags) != 2 || r.Scope.Tags[1] != "office" {
		t.Fatalf("narrowed = %+v", r)
	}
	p2, _ := s.Proposal("p2")
	ce, _ := s.Conflicts(p2)
	if ce == nil || ce.Record != "mem_a" || ce.Seen != 1 || ce.Now != 2 || ce.By != "ana" || ce.Op != "narrow" {
		t.Fatalf("conflict = %+v", ce)
	}
	_, err := s.Decide(ctx, review.DecideRequest{Proposal: "p2", Verb: review.Accept, Operator: "bo"})
	var got *review.ConflictError
	if !errors.As(err, &got) || got.Record != "mem_a" {
		t.Fatalf("accept of stale proposal: %v", err)
	}
	if r2, _ := s.Record("mem_a"); r2.Version != 2 {
		t.Fatalf("conflicting accept changed the record: v%d", r2.Version)
	}
	// Rejecting a stale proposal is always allowed.
	if _, err := s.Decide(ctx, review.DecideRequest{Proposal: "p2", Verb: review.Reject, Operator: "bo"}); err != nil {
		t.Fatal(err)
	}
}

func TestMergeRetiresSourcesBothWays(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	ctx := context.Background()
	propose(t, s, review.Proposal{ID: "p1", Op: review.OpCreate, Record: &review.Record{Lemma: "prices are cents", Category: review.Convention, Confidence: 0.5}})
	d, err := s.Decide(ctx, review.DecideRequest{Proposal: "p1", Verb: review.Merge, With: []string{"mem_b", "mem_c"}, Operator: "ana",
		Record: &review.Record{Lemma: "all prices are integer cents", Category: review.Convention, Confidence: 0.9}})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := s.Record(d.Record.ID)
	if m.Lemma != "all prices are integer cents" || len(m.Provenance.MergedFrom) != 2 {
		t.Fatalf("merged = %+v", m)
	}
	for _, id := range []string{"mem_b", "mem_c"} {
		r, _ := s.Record(id)
		if r.Status != review.Retired || r.Provenance.MergedInto != m.ID || r.Version != 2 {
			t.Fatalf("source %s = %+v", id, r)
		}
	}
	if len(d.Changes) != 3 {
		t.Fatalf("changes = %d", len(d.Changes))
	}
	if _, err := s.Undo(ctx, d.ID, "ana", ""); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"mem_b", "mem_c"} {
		r, _ := s.Record(id)
		if r.Status != review.Active || r.Provenance.MergedInto != "" || r.Version != 3 {
			t.Fatalf("source %s after undo = %+v", id, r)
		}
	}
}

func TestDeleteRejectDefer(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	ctx := context.Background()
	propose(t, s,
		review.Proposal{ID: "p1", Op: review.OpDelete, Targets: []review.Target{{ID: "mem_c"}}},
		review.Proposal{ID: "p2", Op: review.OpSkip, Rationale: "nothing new"},
		review.Proposal{ID: "p3", Op: review.OpCreate, Record: &review.Record{Lemma: "x", Category: review.Fact}})
	if _, err := s.Decide(ctx, review.DecideRequest{Proposal: "p1", Verb: review.Delete, Operator: "ana"}); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.Record("mem_c"); r.Status != review.Retired {
		t.Fatalf("deleted record = %+v", r)
	}
	if _, err := s.Decide(ctx, review.DecideRequest{Proposal: "p2", Verb: review.Defer}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Decide(ctx, review.DecideRequest{Proposal: "p3", Verb: review.Delete}); err == nil {
		t.Fatal("delete on a create proposal with no targets succeeded")
	}
	q, _ := s.Queue()
	if len(q) != 2 || q[0].ID != "p3" || q[1].ID != "p2" || q[1].Status != review.Deferred {
		t.Fatalf("queue = %v", ids(q))
	}
	if _, err := s.Decide(ctx, review.DecideRequest{Proposal: "p3", Verb: review.Reject}); err != nil {
		t.Fatal(err)
	}
	q, _ = s.Queue()
	if len(q) != 1 {
		t.Fatalf("queue = %v", ids(q))
	}
}

func ids(ps []review.Proposal) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.ID+":"+string(p.Status))
	}
	return out
}

func TestAddProposalsAtomic(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	err := s.AddProposals([]review.Proposal{
		{ID: "ok", Op: review.OpSkip},
		{ID: "bad", Op: review.OpDelete, Targets: []review.Target{{ID: "mem_missing"}}},
	}, []review.ProbeRun{{ID: "run_x"}})
	if err == nil {
		t.Fatal("proposal naming a missing record was accepted")
	}
	ps, _ := s.Proposals()
	if len(ps) != 0 {
		t.Fatalf("half-applied: %v", ids(ps))
	}
	if _, err := s.ProbeRun("run_x"); !errors.Is(err, review.ErrNotFound) {
		t.Fatalf("probe run of a failed batch stored: %v", err)
	}
}

func TestConcurrentDecideOneWins(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	propose(t, s, review.Proposal{ID: "p1", Op: review.OpUpdate, Targets: []review.Target{{ID: "mem_b"}},
		Record: &review.Record{Lemma: "prices are integer cents", Category: review.Convention, Confidence: 0.9}})
	other, err := Open(s.Dir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, st := range []*Store{s, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = st.Decide(context.Background(), review.DecideRequest{Proposal: "p1", Verb: review.Accept, Operator: "op"})
		}()
	}
	wg.Wait()
	ok, conflict := 0, 0
	for _, e := range errs {
		switch {
		case e == nil:
			ok++
		case isConflict(e):
			conflict++
		default:
			t.Fatalf("unexpected error: %v", e)
		}
	}
	if ok != 1 || conflict != 1 {
		t.Fatalf("ok=%d conflict=%d", ok, conflict)
	}
	if r, _ := s.Record("mem_b"); r.Version != 2 {
		t.Fatalf("record version = %d, want exactly one update", r.Version)
	}
}

func TestChangeFeed(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	seq, _ := s.LastSeq()
	propose(t, s, review.Proposal{ID: "p1", Op: review.OpDelete, Targets: []review.Target{{ID: "mem_a"}}})
	if _, err := s.Decide(context.Background(), review.DecideRequest{Proposal: "p1", Verb: review.Accept}); err != nil {
		t.Fatal(err)
	}
	ch, _ := s.ChangesSince(seq)
	got := map[string]bool{}
	for _, c := range ch {
		got[c.Kind+":"+c.ID] = true
	}
	if len(ch) != 2 || !got["proposal:p1"] || !got["record:mem_a"] {
		t.Fatalf("changes = %+v", ch)
	}
}

func TestNewVersionClearsVerifyResults(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	if err := s.SetCheckResults([]review.CheckResult{{RecordID: "mem_b", Index: 0, Verdict: "fails-now"}}); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.Record("mem_b"); !r.Suspect {
		t.Fatal("a failing check did not make the record suspect")
	}
	rec := review.Record{ID: "mem_b", Lemma: "prices are integer cents", Category: review.Convention, Confidence: 0.9}
	if _, err := s.DecideRecords(context.Background(), review.RecordRequest{Verb: review.Edit, Record: &rec, Operator: "ana"}); err != nil {
		t.Fatal(err)
	}
	r, _ := s.Record("mem_b")
	res, _ := s.CheckResults("mem_b")
	if r.Suspect || len(res) != 0 {
		t.Fatalf("after an edit: suspect=%v results=%v; a new version is not verified yet", r.Suspect, res)
	}
}

func TestExistingRecordIDs(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	got, err := s.ExistingRecordIDs([]string{"mem_b", "mem_x", "mem_a", "mem_b", "", `mem_"q`})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !got["mem_a"] || !got["mem_b"] {
		t.Errorf("ExistingRecordIDs = %v, want mem_a and mem_b only", got)
	}
	if got, err := s.ExistingRecordIDs(nil); err != nil || len(got) != 0 {
		t.Errorf("ExistingRecordIDs(nil) = %v, %v", got, err)
	}
}

func TestRecordsAfter(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	var got []string
	after := ""
	for {
		page, err := s.RecordsAfter(after, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		for _, r := range page {
			got = append(got, r.ID)
		}
		after = page[len(page)-1].ID
	}
	if strings.Join(got, " ") != "mem_a mem_b mem_c" {
		t.Errorf("pages of 2 gave %v, want mem_a mem_b mem_c", got)
	}
}
