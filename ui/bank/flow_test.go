package bank_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui"
	"github.com/memreview/memreview/ui/bank"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// Flows on the generated sample world, through the real program (ui.New):
// it opens on the review screen, 2 shows the bank.

// startBank starts the program at 160x47 (the bank's body is 160x44 under
// the header and over the footer), waits for the review screen's first
// proposal, shows the bank and waits for every record and texts.
func startBank(t *testing.T, deps common.Deps, texts ...string) *teatest.TestModel {
	t.Helper()
	queue, err := deps.Service.Queue()
	if err != nil || len(queue) == 0 {
		t.Fatalf("the sample queue: %d proposals, %v", len(queue), err)
	}
	n, err := deps.Service.Records(review.RecordFilter{})
	if err != nil {
		t.Fatal(err)
	}
	tm := uitest.Start(t, ui.New(deps), 160, 47)
	uitest.WaitFor(t, tm, "Candidate "+queue[0].ID)
	tm.Type("2")
	uitest.WaitFor(t, tm, append(texts, fmt.Sprintf("%d records", len(n)))...)
	return tm
}

func search(t *testing.T, ix *app.Service, req app.SearchRequest) *app.SearchResults {
	t.Helper()
	req.Type = "record"
	req.Sort = bank.SortFor(req.Query)
	res, err := ix.Search(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// typeQuery types /query and waits for want, its results: their count and
// the detail of their first hit, where the cursor goes. (The count alone
// could be the end of the count shown before, "3 records" of "33
// records", and keys sent then would act on the old rows.)
func typeQuery(t *testing.T, tm *teatest.TestModel, s *app.Service, query string, want *app.SearchResults) {
	t.Helper()
	if first := search(t, s, app.SearchRequest{Size: 1}).Hits[0].ID; want.Hits[0].ID == first {
		t.Fatalf("%q finds %s first, the record selected before the search; the wait would not tell them apart", query, first)
	}
	tm.Type("/" + query)
	uitest.WaitFor(t, tm, fmt.Sprintf("%d records", want.Total), "Detail "+want.Hits[0].ID+" v")
}

func record(t *testing.T, s *app.Service, id string) *review.Record {
	t.Helper()
	r, err := s.Record(id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func lemma(t *testing.T, s *app.Service, id string) string {
	t.Helper()
	return record(t, s, id).Lemma
}

var (
	esc   = tea.KeyMsg{Type: tea.KeyEsc}
	enter = tea.KeyMsg{Type: tea.KeyEnter}
	save  = tea.KeyMsg{Type: tea.KeyCtrlS} // a record form's save (enter breaks the lemma's line)
	space = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
)

func TestSearchAndSelect(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	want := search(t, deps.Service, app.SearchRequest{Query: "stars", Size: 100})
	if want.Total < 2 {
		t.Fatalf("the sample bank has %d records about stars; the test needs two", want.Total)
	}
	tm := startBank(t, deps)
	typeQuery(t, tm, deps.Service, "stars", want)
	tm.Send(esc)
	tm.Type("j")
	id := want.Hits[1].ID
	uitest.WaitFor(t, tm, "Detail "+id+" v1", lemma(t, deps.Service, id)[:30], "Provenance", "History (1 version)")
}

func TestFacetToggle(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	all := search(t, deps.Service, app.SearchRequest{Facets: []string{"category"}})
	fc := slices.MinFunc(all.Facets["category"], func(a, b app.FacetCount) int { return strings.Compare(a.Term, b.Term) }) // the picker lists terms by name
	if uint64(fc.Count) == all.Total {
		t.Fatalf("facet %s holds every record; the count would not change", fc.Term)
	}
	tm := startBank(t, deps)
	tm.Type("f")
	uitest.WaitFor(t, tm, "Facets", fmt.Sprintf("[ ] %s %d", fc.Term, fc.Count), "esc put filters back")
	tm.Send(space)
	uitest.WaitFor(t, tm, fmt.Sprintf("%d records", fc.Count), "category="+fc.Term, fmt.Sprintf("[x] %s", fc.Term))
	tm.Send(space) // off again: every record
	uitest.WaitFor(t, tm, fmt.Sprintf("%d records", all.Total))
	// esc puts back the filters the picker opened with (issue 23 item 12:
	// the footer said "esc cancel" and the filter stayed); enter keeps them.
	tm.Send(space)
	uitest.WaitFor(t, tm, fmt.Sprintf("%d records", fc.Count))
	tm.Send(esc)
	uitest.WaitFor(t, tm, fmt.Sprintf("%d records", all.Total))
}

// TestEditHistoryUndo edits a record through the form, sees the new version
// as a diff in its history, then undoes it.
func TestEditHistoryUndo(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	id := search(t, deps.Service, app.SearchRequest{Size: 1}).Hits[0].ID
	before := lemma(t, deps.Service, id)
	tm := startBank(t, deps, "Detail "+id+" v1")
	tm.Type("e")
	uitest.WaitFor(t, tm, "Edit "+id)
	tm.Type(" XQZ")
	tm.Send(save)
	uitest.WaitFor(t, tm, "edit dec_", "Detail "+id+" v2")
	tm.Send(tea.KeyMsg{Type: tea.KeyTab}) // to the detail, then its end: the history
	// G again if need be: the reload the change watcher starts when it sees
	// the edit (BankChanged, within half a second) shows the detail from
	// its top.
	for try := 1; ; try++ {
		tm.Type("G")
		if uitest.Shows(tm, 3*time.Second, "v2 edit · tester", "+ lemma: ", "XQZ") {
			break
		}
		if try == 3 {
			t.Fatal("G did not show the edit in the history three times")
		}
	}
	hist, err := deps.Service.History(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 2 || hist[1].Op != "edit" || hist[1].Actor != "tester" || hist[1].Record.Lemma != before+" XQZ" {
		t.Fatalf("history after the edit: %+v", hist)
	}
	tm.Type("u")
	uitest.WaitFor(t, tm, "undid dec_", "Detail "+id+" v3")
	if got := lemma(t, deps.Service, id); got != before {
		t.Errorf("after undo the lemma is %q, want %q", got, before)
	}
}

func TestDeleteAsksThenRetires(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	id := search(t, deps.Service, app.SearchRequest{Size: 1}).Hits[0].ID
	tm := startBank(t, deps, "Detail "+id+" v1")
	tm.Type("d")
	uitest.WaitFor(t, tm, "Delete: retire "+id)
	tm.Type("y")
	uitest.WaitFor(t, tm, id+" v2 (retired)")
	r, err := deps.Service.Record(id)
	if err != nil || r.Status != review.Retired {
		t.Fatalf("record %s after delete: %+v, %v", id, r, err)
	}
}

func TestMergeMarkedRecords(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	want := search(t, deps.Service, app.SearchRequest{Query: "cents", Size: 2})
	a, b := want.Hits[0].ID, want.Hits[1].ID
	tm := startBank(t, deps)
	typeQuery(t, tm, deps.Service, "cents", want)
	tm.Send(esc)
	tm.Send(space) // mark a; the cursor moves to b
	uitest.WaitFor(t, tm, "1 marked for merge", "Detail "+b)
	tm.Type("m")
	uitest.WaitFor(t, tm, "Merge "+b+" with "+a)
	tm.Send(save)
	uitest.WaitFor(t, tm, "merge dec_")
	for _, id := range []string{a, b} {
		r, err := deps.Service.Record(id)
		if err != nil || r.Status != review.Retired || r.Provenance.MergedInto == "" {
			t.Errorf("source %s after merge: %+v, %v", id, r, err)
		}
	}
}

func TestRetrievalPreview(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	task := "average price of electronics in dollars"
	want, err := deps.Service.Retrieve(app.RetrieveRequest{Task: task, Scope: review.Scope{Env: "shop"}, K: 3, Preview: true})
	if err != nil || len(want) == 0 {
		t.Fatalf("retrieve: %v, %v", want, err)
	}
	tm := startBank(t, deps)
	tm.Type("R")
	uitest.WaitFor(t, tm, "Retrieval preview")
	tm.Type(task)
	tm.Send(tea.KeyMsg{Type: tea.KeyTab})
	tm.Type("shop")
	tm.Send(tea.KeyMsg{Type: tea.KeyTab})
	tm.Send(tea.KeyMsg{Type: tea.KeyBackspace})
	tm.Type("3")
	tm.Send(enter)
	var texts []string
	for i, s := range want {
		texts = append(texts, fmt.Sprintf("%d %-8s %6.3f", i+1, s.Record.ID, s.Score))
	}
	uitest.WaitFor(t, tm, texts...)
}

// TestRetrievalPreviewMarksSuspect: a suspect record (a check of it no
// longer holds) that the preview lists says so on its row (issue 23 item
// 12: R listed a contradicted record first, unmarked).
func TestRetrievalPreviewMarksSuspect(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	recs, err := deps.Service.Records(review.RecordFilter{})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(recs, func(r review.Record) bool { return r.Suspect && r.Status == review.Active })
	if i < 0 {
		t.Fatal("the sample world has no suspect record")
	}
	sus := recs[i]
	task := strings.Join(strings.Fields(sus.Lemma)[:6], " ")
	got, err := deps.Service.Retrieve(app.RetrieveRequest{Task: task, Scope: sus.Scope, K: 5, Preview: true})
	rank := slices.IndexFunc(got, func(r app.Retrieved) bool { return r.Record.ID == sus.ID })
	if err != nil || rank < 0 {
		t.Fatalf("retrieving %q does not give %s: %v, %v", task, sus.ID, got, err)
	}
	tm := startBank(t, deps)
	tm.Type("R")
	uitest.WaitFor(t, tm, "Retrieval preview")
	tm.Type(task)
	tm.Send(tea.KeyMsg{Type: tea.KeyTab})
	tm.Type(sus.Scope.Env)
	tm.Send(enter)
	uitest.WaitFor(t, tm, fmt.Sprintf("%d %-8s %6.3f suspect: a check no longer holds", rank+1, sus.ID, got[rank].Score), "suspect ones too")
}

// TestProvenanceOpensTrajectory follows a record's provenance to the
// trajectories screen, which opens at the cited step and lists the record
// under it.
func TestProvenanceOpensTrajectory(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	id := search(t, deps.Service, app.SearchRequest{Size: 1}).Hits[0].ID
	r, err := deps.Service.Record(id)
	if err != nil || r.Provenance.Trajectory == "" || r.Provenance.Steps == nil {
		t.Fatalf("record %s has no provenance to follow: %+v, %v", id, r, err)
	}
	tm := startBank(t, deps, "Detail "+id+" v1")
	tm.Send(enter) // to the detail
	tm.Send(enter) // open the provenance link
	uitest.WaitFor(t, tm, fmt.Sprintf("Detail %s · step %d", r.Provenance.Trajectory, r.Provenance.Steps.From), "↳ "+id)
}

// TestVerifyChecks re-runs a record's checks live with v and stores the
// results.
func TestVerifyChecks(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	id := search(t, deps.Service, app.SearchRequest{Size: 1}).Hits[0].ID
	r, err := deps.Service.Record(id)
	if err != nil || len(r.Checks) == 0 {
		t.Fatalf("record %s has no checks: %v", id, err)
	}
	env, err := deps.Service.ResolveEnv(r.Checks[0].Env)
	if err != nil {
		t.Fatal(err)
	}
	want := probe.Compare(r.Checks[0].Expect, probe.Run(context.Background(), env, r.Checks[0].Input, probe.Limits{}))
	// The sample world was verified when it was generated; v verifies again.
	before, err := deps.Service.CheckResults(id)
	if err != nil || len(before) != len(r.Checks) {
		t.Fatalf("the sample world's check results of %s: %+v, %v", id, before, err)
	}
	tm := startBank(t, deps, "Detail "+id+" v1", verdictWords[before[0].Verdict])
	tm.Type("v")
	uitest.WaitFor(t, tm, "verified "+id+": ", verdictWords[want])
	got, err := deps.Service.CheckResults(id)
	if err != nil || len(got) != len(r.Checks) || got[0].Verdict != want {
		t.Fatalf("check results of %s: %+v, %v; want %d results, the first %s", id, got, err, len(r.Checks), want)
	}
	if !got[0].At.After(before[0].At) {
		t.Errorf("v did not store a new result: at %s, before %s", got[0].At, before[0].At)
	}
}

var verdictWords = map[probe.Verdict]string{probe.Same: "✔ same", probe.Changed: "~ changed",
	probe.FailsNow: "✘ fails now", probe.EnvChanged: "≈ environment changed"}

// TestShowRecordFindsIt: ShowRecord (enter on a trajectory step, a link)
// selects the record and opens its detail (TestEscapeQuery checks that the
// query it runs keeps any id one term).
func TestShowRecordFindsIt(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	recs, err := deps.Service.Records(review.RecordFilter{})
	if err != nil || len(recs) < 3 {
		t.Fatalf("the sample records: %d, %v", len(recs), err)
	}
	id := recs[2].ID
	tm := startBank(t, deps)
	tm.Send(common.ShowRecord{ID: id})
	uitest.WaitFor(t, tm, "1 record ", "Detail "+id+" v")
}

// TestMergeKeepsBothRecords marks two records with steps, tags and checks
// of their own, merges them and edits the combined lemma: the committed
// record holds both lemmas, both triggers and the union of their steps,
// tags and checks, and the sources are retired into it.
func TestMergeKeepsBothRecords(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	want := search(t, deps.Service, app.SearchRequest{Query: "sqlite_master", Size: 2})
	if want.Total < 2 {
		t.Fatalf("the sample bank has %d records about sqlite_master; the test needs two", want.Total)
	}
	a, b := record(t, deps.Service, want.Hits[0].ID), record(t, deps.Service, want.Hits[1].ID)
	if len(a.Steps) == 0 || len(b.Steps) == 0 || slices.Equal(a.Scope.Tags, b.Scope.Tags) {
		t.Fatalf("the test needs two records with steps and different tags: %+v, %+v", a, b)
	}
	tm := startBank(t, deps)
	typeQuery(t, tm, deps.Service, "sqlite_master", want)
	tm.Send(esc)
	tm.Send(space) // mark a; the cursor moves to b
	uitest.WaitFor(t, tm, "1 marked for merge", "Detail "+b.ID)
	tm.Type("m")
	uitest.WaitFor(t, tm, "Merge "+b.ID+" with "+a.ID)
	tm.Type(" Checked by hand.")
	tm.Send(save)
	uitest.WaitFor(t, tm, "merge dec_")

	src := record(t, deps.Service, a.ID)
	if src.Status != review.Retired || src.Provenance.MergedInto == "" {
		t.Fatalf("source %s after merge: %s into %q", a.ID, src.Status, src.Provenance.MergedInto)
	}
	got, err := uitest.Store(t, deps).Record(src.Provenance.MergedInto)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*review.Record{a, b} {
		if s := record(t, deps.Service, r.ID); s.Status != review.Retired || s.Provenance.MergedInto != got.ID {
			t.Errorf("source %s after merge: %s into %q; want retired into %s", r.ID, s.Status, s.Provenance.MergedInto, got.ID)
		}
		if !strings.Contains(got.Lemma, r.Lemma) {
			t.Errorf("merged lemma %q lost %s's %q", got.Lemma, r.ID, r.Lemma)
		}
		if r.Trigger != "" && !strings.Contains(got.Trigger, r.Trigger) {
			t.Errorf("merged trigger %q lost %s's %q", got.Trigger, r.ID, r.Trigger)
		}
		for _, s := range r.Steps {
			if !slices.Contains(got.Steps, s) {
				t.Errorf("merged steps %q lost %s's %q", got.Steps, r.ID, s)
			}
		}
		for _, tag := range r.Scope.Tags {
			if !slices.Contains(got.Scope.Tags, tag) {
				t.Errorf("merged tags %v lost %s's %q", got.Scope.Tags, r.ID, tag)
			}
		}
		for _, c := range r.Checks {
			if !slices.ContainsFunc(got.Checks, func(g review.Check) bool { return g.Env == c.Env && g.Input == c.Input }) {
				t.Errorf("merged checks lost %s's %s check %q", r.ID, c.Env, c.Input)
			}
		}
	}
	if !strings.Contains(got.Lemma, "Checked by hand.") {
		t.Errorf("merged lemma %q lacks the operator's edit", got.Lemma)
	}
	if n := len(a.Steps) + len(b.Steps); len(got.Steps) != n {
		t.Errorf("merged record has %d steps; want the %d of both", len(got.Steps), n)
	}
	if !slices.Equal(got.Provenance.MergedFrom, []string{b.ID, a.ID}) {
		t.Errorf("merged from %v; want [%s %s]", got.Provenance.MergedFrom, b.ID, a.ID)
	}
}

// TestWorthInTheBank drives the bank screen on the sample world: the rows
// of records retrieved mostly by failed tasks carry the mark, the detail
// shows a record's worth in counts, and w sorts the results by worth, best
// first, then worst first.
func TestWorthInTheBank(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	recs, worth := bank.SampleWorth(t, deps)
	var failed *review.Record
	for i := range recs {
		if worth[recs[i].ID].MostlyFailed() {
			failed = &recs[i]
			break
		}
	}
	if failed == nil {
		t.Fatal("the sample world has no record retrieved mostly by failed tasks")
	}
	w := worth[failed.ID]
	// Every record is on the 44-line body, so the category and env
	// columns are as wide as the widest of all.
	row := bank.RowStart(*failed, recs)
	tm := startBank(t, deps, row+"✘ mostly failed ")

	tm.Send(common.ShowRecord{ID: failed.ID})
	uitest.WaitFor(t, tm, "Detail "+failed.ID,
		fmt.Sprintf("worth: retrieved by %d tasks: %d passed, %d failed;", w.Retrieved, w.Passed, w.Failed()))

	best, worst := bank.Extreme(recs, worth, true), bank.Extreme(recs, worth, false)
	tm.Type("x") // every record again
	uitest.WaitFor(t, tm, "filters and query cleared", fmt.Sprintf("%d records", len(recs)))
	tm.Type("w")
	uitest.WaitFor(t, tm, "sorted by worth, best first", "▸ "+best+" ")
	tm.Type("w")
	uitest.WaitFor(t, tm, "sorted by worth, worst first", "▸ "+worst+" ", failed.ID)
	tm.Type("w")
	uitest.WaitFor(t, tm, "sorted as the index orders them")
}
