package ui

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// session reads a teatest program's output as it runs.
type session struct {
	t    *testing.T
	tm   *teatest.TestModel
	all  []byte // everything printed so far
	seen int    // all[:seen] was looked at by an earlier wait
}

func start(t *testing.T, deps common.Deps, w, h int) *session {
	return &session{t: t, tm: teatest.NewTestModel(t, New(deps), teatest.WithInitialTermSize(w, h))}
}

// wait waits until the program has printed every one of texts since the
// last wait, or until cond holds for everything printed, and returns what
// it printed since the last wait.
func (s *session) wait(cond func(all, recent []byte) bool, what string) []byte {
	s.t.Helper()
	buf := make([]byte, 64<<10)
	deadline := time.Now().Add(uitest.WaitTimeout)
	for time.Now().Before(deadline) {
		n, _ := s.tm.Output().Read(buf)
		s.all = append(s.all, buf[:n]...)
		if recent := s.all[s.seen:]; cond(s.all, recent) {
			s.seen = len(s.all)
			return recent
		}
		time.Sleep(20 * time.Millisecond)
	}
	tail := ansi.Strip(string(s.all[s.seen:]))
	if len(tail) > 4000 {
		tail = tail[len(tail)-4000:]
	}
	s.t.Fatalf("the program did not show %s within %s; since the last wait it printed:\n%s", what, uitest.WaitTimeout, tail)
	return nil
}

// waitFor waits until the program has printed every one of texts since the
// last wait and returns what it printed.
func (s *session) waitFor(texts ...string) []byte {
	s.t.Helper()
	return s.wait(func(_, recent []byte) bool {
		for _, text := range texts {
			if !bytes.Contains(recent, []byte(text)) {
				return false
			}
		}
		return true
	}, fmt.Sprintf("%q", texts))
}

// open shows proposal id and waits until its context has loaded: the
// candidate pane's title, as last printed, names it.
func (s *session) open(id string) {
	s.t.Helper()
	s.tm.Send(common.ShowProposal{ID: id})
	s.wait(func(all, _ []byte) bool {
		i := bytes.LastIndex(all, []byte("Candidate prop_"))
		return i >= 0 && bytes.HasPrefix(all[i+len("Candidate "):], []byte(id))
	}, "proposal "+id)
}

func (s *session) typ(keys string) { s.tm.Type(keys) }
func (s *session) send(m tea.Msg)  { s.tm.Send(m) }

// quit presses q and waits for the program to end.
func (s *session) quit() {
	s.tm.Type("q")
	s.tm.WaitFinished(s.t, teatest.WithFinalTimeout(5*time.Second))
}

// TestReviewFlow drives the real program through five decisions on the
// sample world, then reopens the bank and checks exactly what was written.
func TestReviewFlow(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s := start(t, w.deps, 200, 60)
	s.waitFor("Candidate " + sample.ProposalIDs[0])

	// 1. Accept a create whose probe reproduces.
	s.open(sample.PropAcceptCreate)
	s.typ("a")
	s.waitFor("accepted " + sample.PropAcceptCreate + " → mem_")

	// 2. Narrow the overgeneral record to g1 by changing its scope tags.
	s.open(sample.PropNarrow)
	s.typ("n")
	s.waitFor("Narrow " + sample.PropNarrow)
	s.send(tea.KeyMsg{Type: tea.KeyCtrlU}) // clear the tags field
	s.typ("ratings, verified, g1")
	s.send(tea.KeyMsg{Type: tea.KeyEnter})
	s.waitFor("narrowed " + sample.PropNarrow + " → " + sample.RecOvergeneral + " v2")

	// 3. Merge the revenue-per-head pair with the first suggested record.
	s.open(sample.PropMerge)
	s.typ("m")
	out := s.waitFor("▸[ ] mem_")
	got := regexp.MustCompile(`▸\[ \] (mem_\d+)`).FindAllSubmatch(out, -1)
	suggested := string(got[len(got)-1][1])
	s.send(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
	s.waitFor("▸[x] " + suggested)
	s.send(tea.KeyMsg{Type: tea.KeyEnter}) // the merge editor, then commit
	s.waitFor("Merge " + sample.PropMerge + ": the combined record")
	s.send(tea.KeyMsg{Type: tea.KeyCtrlS})
	s.waitFor("merged " + sample.PropMerge + " → mem_")

	// 4. Delete the wrong record, answering the question.
	s.open(sample.PropDelete)
	s.typ("d")
	s.waitFor("retire " + sample.RecWrong)
	s.typ("y")
	s.waitFor("deleted " + sample.PropDelete + " → " + sample.RecWrong + " v2 (retired)")

	// 5. Undo the delete.
	s.typ("u")
	s.waitFor(sample.PropDelete + " is open again")

	s.quit()

	w.reopen(t)
	st := w.store
	decs, err := st.Decisions()
	if err != nil {
		t.Fatal(err)
	}
	var verbs []string
	for _, d := range decs {
		verbs = append(verbs, string(d.Verb)+" "+d.Proposal+" by "+d.Operator)
	}
	want := []string{
		"accept " + sample.PropAcceptCreate + " by tester",
		"narrow " + sample.PropNarrow + " by tester",
		"merge " + sample.PropMerge + " by tester",
		"delete " + sample.PropDelete + " by tester",
		"undo " + sample.PropDelete + " by tester",
	}
	if !slices.Equal(verbs, want) {
		t.Fatalf("decisions:\n%s\nwant:\n%s", strings.Join(verbs, "\n"), strings.Join(want, "\n"))
	}
	accept, merge, del, undo := decs[0], decs[2], decs[3], decs[4]
	if del.UndoneBy != undo.ID || undo.Undoes != del.ID {
		t.Errorf("undo links: delete undone_by %q, undo undoes %q; want %q and %q", del.UndoneBy, undo.Undoes, undo.ID, del.ID)
	}

	// The accepted create is a new active record at version 1.
	prop, err := st.Proposal(sample.PropAcceptCreate)
	if err != nil {
		t.Fatal(err)
	}
	created := record(t, st, accept.Record.ID)
	if created.Version != 1 || created.Status != review.Active || created.Lemma != prop.Record.Lemma {
		t.Errorf("accepted record %s: v%d %s %q; want v1 active %q", created.ID, created.Version, created.Status, created.Lemma, prop.Record.Lemma)
	}
	if prop.Status != review.Accepted {
		t.Errorf("%s status %s, want accepted", prop.ID, prop.Status)
	}

	// The narrowed record has the new tags at version 2, written by narrow.
	narrowed := record(t, st, sample.RecOvergeneral)
	if narrowed.Version != 2 || !slices.Equal(narrowed.Scope.Tags, []string{"ratings", "verified", "g1"}) {
		t.Errorf("narrowed %s: v%d tags %v; want v2 [ratings verified g1]", narrowed.ID, narrowed.Version, narrowed.Scope.Tags)
	}
	checkHistory(t, st, sample.RecOvergeneral, "narrow")

	// The merge made one new record from the pair and the suggestion and
	// retired all three, pointing at it.
	merged := record(t, st, merge.Record.ID)
	sources := []string{sample.RecRevenueHeadA, sample.RecRevenueHeadB, suggested}
	if merged.Status != review.Active || merged.Version != 1 || !slices.Equal(merged.Provenance.MergedFrom, sources) {
		t.Errorf("merged %s: %s v%d from %v; want active v1 from %v", merged.ID, merged.Status, merged.Version, merged.Provenance.MergedFrom, sources)
	}
	for _, id := range sources {
		r := record(t, st, id)
		if r.Status != review.Retired || r.Provenance.MergedInto != merged.ID || r.Version != 2 {
			t.Errorf("merge source %s: %s v%d into %q; want retired v2 into %s", id, r.Status, r.Version, r.Provenance.MergedInto, merged.ID)
		}
		checkHistory(t, st, id, "merge")
	}

	// The delete was undone: the record is active again at version 3 and
	// the proposal is back in the queue.
	wrong := record(t, st, sample.RecWrong)
	if wrong.Status != review.Active || wrong.Version != 3 {
		t.Errorf("%s after undo: %s v%d; want active v3", wrong.ID, wrong.Status, wrong.Version)
	}
	checkHistory(t, st, sample.RecWrong, "retire", "undo")
	q, err := st.Queue()
	if err != nil {
		t.Fatal(err)
	}
	var open []string
	for _, p := range q {
		open = append(open, p.ID)
	}
	if !slices.Contains(open, sample.PropDelete) || slices.Contains(open, sample.PropMerge) || len(open) != len(sample.ProposalIDs)-3 {
		t.Errorf("queue after the flow: %v", open)
	}
}

func record(t *testing.T, s *store.Store, id string) *review.Record {
	t.Helper()
	r, err := s.Record(id)
	if err != nil {
		t.Fatalf("record %s: %v", id, err)
	}
	return r
}

// checkHistory checks that id's versions after the first were written by
// ops, in order, by the test operator.
func checkHistory(t *testing.T, s *store.Store, id string, ops ...string) {
	t.Helper()
	h, err := s.History(id)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range h[1:] {
		got = append(got, v.Op+" by "+v.Actor)
	}
	var want []string
	for _, op := range ops {
		want = append(want, op+" by tester")
	}
	if !slices.Equal(got, want) {
		t.Errorf("history of %s after v1: %v, want %v", id, got, want)
	}
}

// TestOtherScreensSeeAWrite: a decision on the review screen reaches the
// bank browser built earlier (its detail shows the new version, not the
// one the decision replaced), and an undo in the bank reopens the proposal
// on the review screen.
func TestOtherScreensSeeAWrite(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := started(t, w.deps, 160, 40)
	m = drive(t, m, common.ShowRecord{ID: sample.RecAttrsG2}) // builds the bank on the record
	if v := m.View(); !strings.Contains(v, "Detail "+sample.RecAttrsG2+" v1") {
		t.Fatalf("the bank does not show %s v1:\n%s", sample.RecAttrsG2, v)
	}
	m = drive(t, m, common.ShowProposal{ID: sample.PropUpdate})
	m = drive(t, m, uitest.Key("a"))
	m = drive(t, m, uitest.Key("2"))
	if v := m.View(); !strings.Contains(v, "Detail "+sample.RecAttrsG2+" v2") {
		t.Fatalf("after accepting %s the bank still shows the old %s:\n%s", sample.PropUpdate, sample.RecAttrsG2, v)
	}
	m = drive(t, m, uitest.Key("u")) // undo in the bank: not its own decision, so it asks first
	if v := m.View(); !strings.Contains(v, "It was not made on the bank screen") {
		t.Fatalf("the bank's u does not ask before undoing the review screen's accept:\n%s", v)
	}
	m = drive(t, m, uitest.Key("y")) // the proposal is open again
	m = drive(t, m, uitest.Key("1"))
	if v := m.View(); !strings.Contains(v, "/15") {
		t.Fatalf("after the undo in the bank the review screen does not count the reopened %s:\n%s", sample.PropUpdate, v)
	}
}
