package hygiene

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/sample/testenv"
)

func TestMain(m *testing.M) {
	code := m.Run()
	sampleWorld.Remove()
	os.Exit(code)
}

// sampleWorld is the sample world, generated once per test process (seven
// tests read it); each test opens a copy of its own.
var sampleWorld = &testenv.Template{Name: "world", Build: func(dir string) error { return sample.Generate(dir, sample.Seed) }}

func sampleStore(t *testing.T) *store.Store {
	t.Helper()
	dir := sampleWorld.Copy(t)
	s, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func runOn(t *testing.T, s *store.Store, opt Options) *Report {
	t.Helper()
	in, err := Load(s, "")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), in, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// On the sample world hygiene finds exactly the planted near-duplicate
// pairs, the cents/dollars contradiction (deleting the record whose check
// does not hold), the stale records verify flags, and nothing else; saved,
// a second run adds nothing.
func TestSampleWorld(t *testing.T) {
	s := sampleStore(t)
	rep := runOn(t, s, Options{})
	got := map[string]review.Op{}
	for _, f := range rep.Findings {
		got[f.Fingerprint] = f.Proposal.Op
		if f.Proposal.Source != Source || f.Proposal.Fingerprint != f.Fingerprint || f.Proposal.Rationale == "" {
			t.Errorf("%s: source %q, fingerprint %q, rationale %q", f.Fingerprint, f.Proposal.Source, f.Proposal.Fingerprint, f.Proposal.Rationale)
		}
	}
	want := map[string]review.Op{
		fingerprint(Duplicates, sample.RecCentsA, sample.RecCentsB):             review.OpMerge,
		fingerprint(Duplicates, sample.RecRevenueHeadA, sample.RecRevenueHeadB): review.OpMerge,
		fingerprint(Contradictions, sample.RecWrong, sample.RecCentsA):          review.OpDelete,
	}
	for _, id := range sample.StaleRecords {
		want[fingerprint(Stale, id)] = review.OpDelete // every failing probe errors now: no current fact to show
	}
	if len(got) != len(want) {
		t.Errorf("found %d findings, want %d: %v", len(got), len(want), got)
	}
	for fp, op := range want {
		if got[fp] != op {
			t.Errorf("%s: op %q, want %q", fp, got[fp], op)
		}
	}
	for _, f := range rep.Findings {
		p := f.Proposal
		switch f.Kind {
		case Contradictions:
			if ids := p.TargetIDs(); !slices.Equal(ids, []string{sample.RecWrong}) {
				t.Errorf("contradiction deletes %v, want only %s (the record without a holding check)", ids, sample.RecWrong)
			}
			for _, w := range []string{sample.RecCentsA, "check holds", "traj_02, which failed"} {
				if !strings.Contains(p.Rationale, w) {
					t.Errorf("contradiction rationale lacks %q: %s", w, p.Rationale)
				}
			}
		case Stale:
			if len(f.Runs) == 0 || !strings.Contains(p.Rationale, "no such") {
				t.Errorf("stale %v: want the failing run as evidence, got %d runs: %s", f.Records, len(f.Runs), p.Rationale)
			}
		case Duplicates:
			checkMerge(t, s, p)
		}
	}
	saved, err := Save(s, rep)
	if err != nil {
		t.Fatal(err)
	}
	if len(saved) != len(want) {
		t.Fatalf("saved %d proposals, want %d", len(saved), len(want))
	}
	again := runOn(t, s, Options{})
	if n := len(again.New()); n != 0 || len(again.Findings) != len(want) {
		t.Errorf("second run: %d new of %d findings, want 0 new of %d", n, len(again.Findings), len(want))
	}
	if saved2, err := Save(s, again); err != nil || len(saved2) != 0 {
		t.Errorf("second save added %d proposals (err %v), want none", len(saved2), err)
	}
	only := runOn(t, s, Options{Only: Stale})
	for _, f := range only.Findings {
		if f.Kind != Stale {
			t.Errorf("--only stale found a %s", f.Kind)
		}
	}
}

// checkMerge: the merged record keeps every member's lemma, steps, tags
// and checks, and adds nothing that no member has.
func checkMerge(t *testing.T, s *store.Store, p review.Proposal) {
	t.Helper()
	m := p.Record
	var steps, tags, checks []string
	for _, id := range p.TargetIDs() {
		r, err := s.Record(id)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(m.Lemma, r.Lemma) {
			t.Errorf("merge of %v lost %s's lemma %q: %q", p.TargetIDs(), id, r.Lemma, m.Lemma)
		}
		steps, tags = append(steps, r.Steps...), append(tags, r.Scope.Tags...)
		for _, c := range r.Checks {
			checks = append(checks, c.Input)
		}
	}
	for _, x := range steps {
		if !slices.Contains(m.Steps, x) {
			t.Errorf("merge lost step %q", x)
		}
	}
	for _, x := range m.Steps {
		if !slices.Contains(steps, x) {
			t.Errorf("merge invented step %q", x)
		}
	}
	for _, x := range tags {
		if !slices.Contains(m.Scope.Tags, x) {
			t.Errorf("merge lost tag %q", x)
		}
	}
	if len(m.Checks) != len(checks) {
		t.Errorf("merge has %d checks, members %d", len(m.Checks), len(checks))
	}
}

// A check whose probe still runs but returns something else gives an
// update that expects the current result; unused records are those no task
// retrieved in the window before the bank's latest task.
func TestStaleUpdateAndUnused(t *testing.T) {
	s := sampleStore(t)
	in, err := Load(s, "")
	if err != nil {
		t.Fatal(err)
	}
	id := sample.RecCentsB
	cs := in.Checks[id]
	if len(cs) == 0 {
		t.Fatalf("%s has no verify results", id)
	}
	cs[0].Verdict = "changed"
	cs[0].Now.Error = ""
	cs[0].Now.Rows = [][]any{{"1999"}}
	rep, err := Run(context.Background(), in, Options{Only: Stale})
	if err != nil {
		t.Fatal(err)
	}
	var upd *Finding
	for i, f := range rep.Findings {
		if slices.Equal(f.Records, []string{id}) {
			upd = &rep.Findings[i]
		}
	}
	if upd == nil || upd.Proposal.Op != review.OpUpdate || upd.Proposal.Record.Checks[0].Expect.Rows[0][0] != "1999" {
		t.Fatalf("changed check: want an update expecting the current result, got %+v", upd)
	}
	rep, err = Run(context.Background(), in, Options{Only: Unused, MaxUnusedDays: 1})
	if err != nil {
		t.Fatal(err)
	}
	w := review.WorthOf(in.Trajectories)
	if len(rep.Findings) == 0 {
		t.Fatal("max_unused_days 1: want some unused records in the sample world")
	}
	for _, f := range rep.Findings {
		if f.Proposal.Op != review.OpDelete || w[f.Records[0]].Retrieved > 0 && !strings.Contains(f.Proposal.Rationale, "last task that retrieved it") {
			t.Errorf("unused %v: %s %s", f.Records, f.Proposal.Op, f.Proposal.Rationale)
		}
	}
	if rep, _ := Run(context.Background(), in, Options{Only: Unused}); len(rep.Findings) != 0 {
		t.Errorf("default 90 days: %d unused in the sample world, want 0", len(rep.Findings))
	}
}
