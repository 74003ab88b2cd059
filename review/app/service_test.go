package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/sample/testenv"
)

func asConflict(err error, ce **review.ConflictError) bool { return errors.As(err, ce) }

// sampleWorld is the sample world, generated, indexed and embedded once
// per test package run (TestMain removes it); each test gets a copy, which
// carries the index, the bank's offline embedder and every record's
// vector, as a bank an operator has opened before does.
var sampleWorld = &testenv.Template{Name: "bank", Build: func(dir string) error {
	if err := sample.Generate(dir, sample.Seed); err != nil {
		return err
	}
	svc, err := app.Open(context.Background(), dir, app.Options{Operator: "setup"})
	if err != nil {
		return err
	}
	defer svc.Close()
	if err := svc.HoldIndex(3 * time.Second); err != nil { // builds the index
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = svc.WaitEmbeddings(ctx, nil)
	return err
}}

// sampleService opens a fresh copy of the sample world.
func sampleService(t testing.TB, opt app.Options) *app.Service {
	t.Helper()
	dir := sampleWorld.Copy(t)
	if opt.Operator == "" {
		opt.Operator = "ana"
	}
	svc, err := app.Open(context.Background(), dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

func hits(t *testing.T, svc *app.Service, q string) []string {
	t.Helper()
	res, err := svc.Search(app.SearchRequest{Query: q, Type: "record", Size: 50})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	return ids
}

// A decision is searchable the moment Decide returns, in this process.
func TestDecideThenSearchSeesIt(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	q, err := svc.Queue()
	if err != nil {
		t.Fatal(err)
	}
	var p review.Proposal
	for _, c := range q {
		if c.Op == review.OpCreate {
			p = c
			break
		}
	}
	if p.ID == "" {
		t.Fatal("the sample world has no create proposal")
	}
	_ = hits(t, svc, "prices") // the index is open and current before the write
	d, err := svc.Decide(context.Background(), review.DecideRequest{Proposal: p.ID, Verb: review.Accept})
	if err != nil {
		t.Fatal(err)
	}
	if d.Operator != "ana" {
		t.Fatalf("decision operator = %q, want the service's default ana", d.Operator)
	}
	got := hits(t, svc, "id:"+index.EscapeQuery(d.Record.ID))
	if len(got) != 1 || got[0] != d.Record.ID {
		t.Fatalf("search for the accepted record %s = %v", d.Record.ID, got)
	}
	u, err := svc.Undo(context.Background(), "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.Search(app.SearchRequest{Query: "id:" + index.EscapeQuery(d.Record.ID), Type: "record", Filters: map[string][]string{"status": {"active"}}})
	if err != nil || res.Total != 0 {
		t.Fatalf("after undo %s the record is still active in the index (%v, %v)", u.ID, total(res), err)
	}
}

// A write whose index update fails is still committed; the service warns
// and the caller sees success.
func TestIndexFailureAfterCommitWarns(t *testing.T) {
	t.Parallel()
	var warnings []string
	svc := sampleService(t, app.Options{
		Warnf:     func(f string, a ...any) { warnings = append(warnings, fmt.Sprintf(f, a...)) },
		OpenIndex: func() (app.Index, error) { return nil, errors.New("disk on fire") },
	})
	q, _ := svc.Queue()
	d, err := svc.Decide(context.Background(), review.DecideRequest{Proposal: q[0].ID, Verb: review.Reject})
	if err != nil {
		t.Fatalf("a committed decision failed because the index did: %v", err)
	}
	if got, err := svc.Decision(d.ID); err != nil || got.Verb != review.Reject {
		t.Fatalf("decision %s not stored: %v", d.ID, err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "will catch up") || !strings.Contains(warnings[0], "disk on fire") {
		t.Fatalf("warnings = %q", warnings)
	}
}

// Import validates every input first: one bad line anywhere, and nothing
// from any input is written.
func TestImportValidatesFirst(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	before, _ := svc.LastSeq()
	good := `{"id":"mem_new1","lemma":"a new fact","category":"fact","confidence":0.5}` + "\n"
	bad := `{"id":"mem_new2","lemma":"another","category":"fact","confidence":7}` + "\n"
	ctx := context.Background()
	_, err := svc.Import(ctx, app.KindRecords, []app.ImportInput{
		{Name: "good.jsonl", R: strings.NewReader(good)}, {Name: "bad.jsonl", R: strings.NewReader(bad)}}, app.ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "bad.jsonl") {
		t.Fatalf("import error = %v, want one naming bad.jsonl", err)
	}
	if _, err := svc.Record("mem_new1"); !errors.Is(err, review.ErrNotFound) {
		t.Fatalf("the good file of a failed import was written: %v", err)
	}
	if after, _ := svc.LastSeq(); after != before {
		t.Fatalf("a failed import moved the change sequence %d → %d", before, after)
	}
	res, err := svc.Import(ctx, app.KindRecords, []app.ImportInput{{Name: "good.jsonl", R: strings.NewReader(good)}}, app.ImportOptions{})
	if err != nil || res.Count != 1 {
		t.Fatalf("import = %+v, %v", res, err)
	}
	if got := hits(t, svc, "id:mem_new1"); len(got) != 1 {
		t.Fatalf("imported record not searchable at once: %v", got)
	}
	_, err = svc.Import(ctx, app.KindRecords, []app.ImportInput{{Name: "again.jsonl", R: strings.NewReader(good)}}, app.ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "already in the bank") {
		t.Fatalf("re-import error = %v", err)
	}
}

// Retrieve logs who asked and what they got, unless it is a preview.
func TestRetrieveLogs(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	got, err := svc.Retrieve(app.RetrieveRequest{Task: "how are prices stored", Scope: review.Scope{Env: "shop"}, K: 3, Client: "mcp:test", TaskID: "task-9"})
	if err != nil || len(got) == 0 {
		t.Fatalf("retrieve = %v, %v", got, err)
	}
	if _, err := svc.Retrieve(app.RetrieveRequest{Task: "preview only", Preview: true}); err != nil {
		t.Fatal(err)
	}
	log, err := svc.Retrievals(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 1 || log[0].Client != "mcp:test" || log[0].TaskID != "task-9" || len(log[0].Records) != len(got) || log[0].Records[0] != got[0].Record.ID {
		t.Fatalf("retrieval log = %+v", log)
	}
}

// ChangesSince and Watch report another writer's changes.
func TestWatchSeesOtherWriters(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{WatchEvery: 20 * time.Millisecond})
	other, err := store.Open(svc.Dir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	seq, _ := svc.LastSeq()
	if cs, err := svc.ChangesSince(seq); err != nil || !cs.Empty() {
		t.Fatalf("ChangesSince(LastSeq) = %+v, %v", cs, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := svc.Watch(ctx, seq)
	also := svc.Watch(context.Background(), seq) // a second subscriber of the one follower
	if err := other.AddProposals([]review.Proposal{{ID: "prop_elsewhere", Op: review.OpCreate,
		Record: &review.Record{Lemma: "from another process", Category: review.Fact, Confidence: 0.5}}}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case cs := <-ch:
		if len(cs.Changes) != 1 || cs.Changes[0].Kind != "proposal" || cs.Changes[0].ID != "prop_elsewhere" || cs.From != seq || cs.To <= seq {
			t.Fatalf("watched change set = %+v", cs)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Watch reported nothing for another process's write")
	}
	select {
	case cs := <-also:
		if len(cs.Changes) != 1 || cs.Changes[0].ID != "prop_elsewhere" {
			t.Fatalf("the second subscriber got %+v", cs)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the second subscriber heard nothing")
	}
	cancel()
	for range ch { // closes after ctx ends
	}
	svc.Close()
	select { // and the other when the service closes
	case _, ok := <-also:
		if ok {
			t.Fatal("a change set after Close")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a subscriber's channel stayed open after Close")
	}
}

// AttachRun stores the run and links it in one step; VerifyRecord stores
// results.
func TestProbesAttachVerify(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	ctx := context.Background()
	q, _ := svc.Queue()
	var pid string
	for _, p := range q {
		if runs, _ := svc.ProbeRunsFor("proposal", p.ID); len(runs) > 0 {
			pid = p.ID
			break
		}
	}
	if pid == "" {
		t.Fatal("no sample proposal has probe runs")
	}
	res := svc.Probe(ctx, "shop", "SELECT COUNT(*) FROM items_g1", probe.Limits{})
	if !res.OK() {
		t.Fatalf("probe failed: %s", res.Error)
	}
	rid, err := svc.AttachRun(review.ProbeRun{Result: res}, "proposal", pid, "")
	if err != nil {
		t.Fatal(err)
	}
	runs, _ := svc.ProbeRunsFor("proposal", pid)
	if runs[len(runs)-1].ID != rid || runs[len(runs)-1].Actor != "ana" {
		t.Fatalf("attached run %s not last of %+v", rid, runs)
	}
	if _, err := svc.AttachRun(review.ProbeRun{Result: res}, "proposal", "prop_missing", ""); err == nil {
		t.Fatal("attach to a missing proposal succeeded")
	}
	recs, _ := svc.Records(review.RecordFilter{Status: review.Active})
	var rec review.Record
	for _, r := range recs {
		if len(r.Checks) > 0 {
			rec = r
			break
		}
	}
	v, err := svc.VerifyRecord(ctx, rec.ID, rec.Version)
	if err != nil || v.Stale || len(v.Results) != len(rec.Checks) {
		t.Fatalf("verify %s = %+v, %v", rec.ID, v, err)
	}
	stored, _ := svc.CheckResults(rec.ID)
	if len(stored) != len(rec.Checks) {
		t.Fatalf("stored %d results for %d checks", len(stored), len(rec.Checks))
	}
	if v, _ := svc.VerifyRecord(ctx, rec.ID, rec.Version+5); !v.Stale {
		t.Fatal("verifying a version the record is not at was not stale")
	}
	if _, err := svc.Verify(ctx, "no-such-env"); err == nil {
		t.Fatal("verify of an unknown env succeeded")
	}
}

// An agent's write is always a pending proposal; a submitted trajectory
// never replaces one the bank holds.
func TestProposeAndSubmit(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	ps := []review.Proposal{{Op: review.OpCreate, Status: review.Accepted, Rationale: "agent",
		Record: &review.Record{Lemma: "an agent's idea", Category: review.Fact, Confidence: 0.4}}}
	if err := svc.Propose(ps, nil); err != nil {
		t.Fatal(err)
	}
	p, err := svc.Proposal(ps[0].ID)
	if err != nil || p.Status != review.Pending {
		t.Fatalf("proposed = %+v, %v; want pending whatever it claimed", p, err)
	}
	if err := svc.Propose([]review.Proposal{{Op: review.OpDelete, Targets: []review.Target{{ID: "mem_nope"}}}}, nil); err == nil {
		t.Fatal("a proposal on a missing record was queued")
	}
	ts, _ := svc.Trajectories()
	runs := func(ts ...review.Trajectory) []app.ImportInput {
		var b strings.Builder
		for _, t := range ts {
			line, _ := json.Marshal(t)
			b.Write(line)
			b.WriteByte('\n')
		}
		return []app.ImportInput{{Name: "runs.jsonl", R: strings.NewReader(b.String())}}
	}
	_, err = svc.Import(context.Background(), app.KindTrajectories, runs(review.Trajectory{ID: "traj_new", Task: "a new task", Steps: []review.Step{{Role: "user", Content: "go"}}}, review.Trajectory{ID: ts[0].ID, Task: "replaced?", Steps: []review.Step{{Role: "user", Content: "go"}}}), app.ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), ts[0].ID) {
		t.Fatalf("submitting an existing trajectory = %v", err)
	}
	if _, err := svc.Trajectory("traj_new"); !errors.Is(err, review.ErrNotFound) {
		t.Fatalf("a refused batch stored traj_new: %v", err)
	}
	if _, err := svc.Import(context.Background(), app.KindTrajectories, runs(review.Trajectory{ID: "traj_new", Task: "a new task", Steps: []review.Step{{Role: "user", Content: "go"}}}), app.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := svc.Search(app.SearchRequest{Query: "id:traj_new", Type: "trajectory"})
	if err != nil || res.Total != 1 {
		t.Fatalf("submitted trajectory not searchable at once: %v, %v", total(res), err)
	}
}

// Concurrent retrievals share commits but every one is logged exactly once,
// before its Retrieve returns.
func TestConcurrentRetrievalsAllLogged(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			task := fmt.Sprintf("task-%02d", i)
			if _, err := svc.Retrieve(app.RetrieveRequest{Task: "how are prices stored", Scope: review.Scope{Env: "shop"}, K: 2, Client: "c", TaskID: task}); err != nil {
				errs <- err
				return
			}
			// Durable at return: this process's own read sees it.
			log, err := svc.Retrievals(0, 0)
			if err != nil {
				errs <- err
				return
			}
			found := false
			for _, r := range log {
				found = found || r.TaskID == task
			}
			if !found {
				errs <- fmt.Errorf("retrieval for %s not in the log after Retrieve returned", task)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	log, err := svc.Retrievals(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range log {
		seen[r.TaskID]++
	}
	if len(log) != n || len(seen) != n {
		t.Fatalf("log holds %d entries for %d tasks, want %d each once", len(log), len(seen), n)
	}
}
