package store

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
)

// A record folded in by merge that changed after the operator read it is a
// conflict, and nothing of the merge is written.
func TestMergeWithChangedRecordConflicts(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	ctx := context.Background()
	propose(t, s, review.Proposal{ID: "p1", Op: review.OpCreate, Record: &review.Record{Lemma: "prices are cents", Category: review.Convention, Confidence: 0.5}})
	// The operator reads mem_b at v1; another process edits it.
	edited := review.Record{ID: "mem_b", Lemma: "prices are cents, except in items_g2", Category: review.Convention, Version: 1}
	if _, err := s.DecideRecords(ctx, review.RecordRequest{Verb: review.Edit, Record: &edited, Operator: "bo"}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Decide(ctx, review.DecideRequest{Proposal: "p1", Verb: review.Merge, With: []string{"mem_b", "mem_c"},
		Seen: map[string]int{"mem_b": 1, "mem_c": 1}, Operator: "ana"})
	if !isConflict(err) || !strings.Contains(err.Error(), "mem_b") {
		t.Fatalf("merge with a changed record: %v, want a conflict naming mem_b", err)
	}
	for id, v := range map[string]int{"mem_b": 2, "mem_c": 1} {
		if r, _ := s.Record(id); r.Version != v || r.Status != review.Active {
			t.Fatalf("%s after the refused merge = v%d %s, want v%d active", id, r.Version, r.Status, v)
		}
	}
	if p, _ := s.Proposal("p1"); p.Status != review.Pending {
		t.Fatalf("proposal after the refused merge = %s", p.Status)
	}
	if _, err := s.Decide(ctx, review.DecideRequest{Proposal: "p1", Verb: review.Merge, With: []string{"mem_b"},
		Seen: map[string]int{"mem_b": 2}, Operator: "ana"}); err != nil {
		t.Fatalf("merge with the current version: %v", err)
	}
}

// The bank browser's verbs act on the version the operator read.
func TestDecideRecordsOnStaleRecordConflicts(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	ctx := context.Background()
	read, _ := s.Record("mem_a") // v1, as the browser shows it
	other := *read
	other.Lemma = "reviews join items on fdbk_g1.item_ref = items_g1.item_id"
	if _, err := s.DecideRecords(ctx, review.RecordRequest{Verb: review.Edit, Record: &other, Operator: "bo"}); err != nil {
		t.Fatal(err)
	}
	mine := *read
	mine.Scope.Tags = []string{"g1", "office"}
	_, err := s.DecideRecords(ctx, review.RecordRequest{Verb: review.Narrow, Record: &mine, Operator: "ana"})
	if !isConflict(err) || !strings.Contains(err.Error(), "operator saw version 1, the bank has version 2") {
		t.Fatalf("narrow of a stale record: %v, want a conflict", err)
	}
	if r, _ := s.Record("mem_a"); r.Version != 2 || r.Lemma != other.Lemma {
		t.Fatalf("after the refused narrow: v%d %q; bo's edit was lost", r.Version, r.Lemma)
	}

	b, _ := s.Record("mem_b")
	_, err = s.DecideRecords(ctx, review.RecordRequest{Verb: review.Merge, IDs: []string{"mem_a", "mem_b"}, Record: b,
		Seen: map[string]int{"mem_a": 1}, Operator: "ana"})
	if !isConflict(err) {
		t.Fatalf("merge of a stale record: %v, want a conflict", err)
	}
	_, err = s.DecideRecords(ctx, review.RecordRequest{Verb: review.Delete, IDs: []string{"mem_a"}, Seen: map[string]int{"mem_a": 1}, Operator: "ana"})
	if !isConflict(err) {
		t.Fatalf("delete of a stale record: %v, want a conflict", err)
	}
	if r, _ := s.Record("mem_a"); r.Version != 2 || r.Status != review.Active {
		t.Fatalf("mem_a after refused merge and delete = v%d %s", r.Version, r.Status)
	}
}

// Undoing an older decision on a proposal decided again since would reopen
// a proposal whose later decision still stands.
func TestUndoOlderDecisionOfRedecidedProposalRefused(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	ctx := context.Background()
	propose(t, s, review.Proposal{ID: "p1", Op: review.OpCreate, Record: &review.Record{Lemma: "ratings are 1-5", Category: review.Fact}})
	deferred, err := s.Decide(ctx, review.DecideRequest{Proposal: "p1", Verb: review.Defer, Operator: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	accepted, err := s.Decide(ctx, review.DecideRequest{Proposal: "p1", Verb: review.Accept, Operator: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Undo(ctx, deferred.ID, "ana", "")
	if err == nil || !strings.Contains(err.Error(), accepted.ID) {
		t.Fatalf("undo of the defer under an accept: %v, want a refusal naming %s", err, accepted.ID)
	}
	if p, _ := s.Proposal("p1"); p.Status != review.Accepted {
		t.Fatalf("proposal = %s, want accepted", p.Status)
	}
	// Undo in order works: the accept, then the defer.
	if _, err := s.Undo(ctx, accepted.ID, "ana", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Undo(ctx, deferred.ID, "ana", ""); err != nil {
		t.Fatal(err)
	}
	if p, _ := s.Proposal("p1"); p.Status != review.Pending {
		t.Fatalf("proposal after both undos = %s, want pending", p.Status)
	}
}

// Verify results for a version the record has left are not stored.
func TestCheckResultsOfOldVersionDropped(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	ctx := context.Background()
	r, _ := s.Record("mem_b")
	r.Lemma = "prices are stored in integer cents"
	if _, err := s.DecideRecords(ctx, review.RecordRequest{Verb: review.Edit, Record: r, Operator: "bo"}); err != nil {
		t.Fatal(err)
	}
	// verify read v1, ran its checks, and stores their results after the edit.
	if err := s.SetCheckResults([]review.CheckResult{{RecordID: "mem_b", Version: 1, Index: 0, Verdict: "fails-now"}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Record("mem_b"); got.Suspect {
		t.Fatal("v2 is suspect from the checks of v1")
	}
	if cr, _ := s.CheckResults("mem_b"); len(cr) != 0 {
		t.Fatalf("stored %d results of v1 for v2", len(cr))
	}
	if err := s.SetCheckResults([]review.CheckResult{{RecordID: "mem_b", Version: 2, Index: 0, Verdict: "fails-now"}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Record("mem_b"); !got.Suspect {
		t.Fatal("a failing check of the current version did not make it suspect")
	}
}

// verify --env with a name the bank does not declare is an error, not a
// verify of nothing that reports success.
func TestVerifyUnknownEnvIsAnError(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	if _, err := s.Verify(context.Background(), "shpo"); err == nil || !strings.Contains(err.Error(), `"shpo" is not declared`) {
		t.Fatalf("verify of an undeclared env: %v", err)
	}
	if _, err := s.Verify(context.Background(), ""); err != nil {
		t.Fatalf("verify of every env: %v", err)
	}
}

// An undo refused because a record changed after the decision says which
// decision changed it, and to undo that one first.
func TestUndoConflictNamesTheLaterDecision(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	ctx := context.Background()
	propose(t, s, review.Proposal{ID: "p1", Op: review.OpDelete, Targets: []review.Target{{ID: "mem_c"}}})
	first, err := s.Decide(ctx, review.DecideRequest{Proposal: "p1", Verb: review.Accept, Operator: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	// A later change of the retired record: an edit in the bank browser
	// (an update proposal may not revive it).
	retired, err := s.Record("mem_c")
	if err != nil {
		t.Fatal(err)
	}
	retired.Lemma = "prices were cents"
	later, err := s.DecideRecords(ctx, review.RecordRequest{Verb: review.Edit, Record: retired, Operator: "bo"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Undo(ctx, first.ID, "ana", "")
	want := "conflict: cannot undo " + first.ID + ": record mem_c changed after it: it wrote version 2, the bank has version 3 (edit by bo at "
	if !isConflict(err) || !strings.Contains(err.Error(), want) || !strings.HasSuffix(err.Error(), "undo "+later.ID+" first") {
		t.Fatalf("undo under a later change: %v\nwant %q… undo %s first", err, want, later.ID)
	}
}

// A bank whose path holds URI syntax ('?', '#', '%', '&') keeps its bank.db
// inside it, not at a path the URI cut short.
func TestBankPathWithURICharacters(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	for _, name := range []string{"a?b", "a#b", "a%41", "a&mode=ro"} {
		dir := filepath.Join(parent, name)
		s, err := Create(dir, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := s.PutRecords([]review.Record{{ID: "m", Lemma: "x", Category: review.Fact}}, "t", ""); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s.Close()
		if _, err := os.Stat(filepath.Join(dir, DBFile)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if es, _ := os.ReadDir(parent); len(es) != 4 {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("files beside the banks: %q", names)
	}
}
