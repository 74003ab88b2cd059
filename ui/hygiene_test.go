package ui

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// serviceWorld opens a copy of the sample world as main wires the TUI:
// the service holds the index and the screens read it.
func serviceWorld(t *testing.T) common.Deps {
	t.Helper()
	return uitest.OpenSample(t)
}

// hygieneQueued returns the open proposals hygiene queued.
func hygieneQueued(t *testing.T, st *store.Store) []review.Proposal {
	t.Helper()
	q, err := st.Queue()
	if err != nil {
		t.Fatal(err)
	}
	var out []review.Proposal
	for _, p := range q {
		if p.Source == "hygiene" {
			out = append(out, p)
		}
	}
	return out
}

// TestHygieneFromTheTUI drives the real program: H runs hygiene in the
// background, the footer says what it queued, the queue grows by the
// sample world's seven findings (two merges, the cents/dollars
// contradiction, four stale records) and each is shown on the review
// screen with its rationale and evidence; a second H, incremental, compares
// the no records changed since and queues nothing.
func TestHygieneFromTheTUI(t *testing.T) {
	t.Parallel()
	deps := serviceWorld(t)
	s := start(t, deps, 200, 60)
	s.waitFor("Review 1/15")
	s.typ("H")
	s.waitFor("hygiene: 7 proposals queued (2 merge, 5 delete)", "/22")
	// Zoomed, the candidate pane (hygiene's proposals open on it) takes the
	// whole width: a merge's rationale, under the diff of both records, is
	// on screen. In the stacked panes it is below the pane's last line.
	s.typ("z")

	queue, err := uitest.Store(t, deps).Queue()
	if err != nil {
		t.Fatal(err)
	}
	props := hygieneQueued(t, uitest.Store(t, deps))
	if len(props) != 7 {
		t.Fatalf("%d hygiene proposals in the queue, want 7", len(props))
	}
	ops := map[review.Op]int{}
	for _, p := range props {
		ops[p.Op]++
	}
	slices.Reverse(props) // the first is shown already: its header is not new
	for _, p := range props {
		pos := slices.IndexFunc(queue, func(q review.Proposal) bool { return q.ID == p.ID }) + 1
		s.send(common.ShowProposal{ID: p.ID})
		// The renderer repaints only the lines that changed, so the header
		// (its position) must be new and the candidate pane's text may
		// have been printed for an earlier proposal: its op, targets, the
		// rationale's first words and, when it cites runs, its evidence.
		words := strings.Fields(p.Rationale)
		want := []string{strings.ToUpper(string(p.Op)), "Rationale", words[0] + " " + words[1]}
		for _, tg := range p.Targets {
			want = append(want, tg.ID)
		}
		if p.Op == review.OpDelete && len(p.Targets) == 1 && strings.Contains(p.Rationale, "dollars") {
			want = append(want, "check holds") // the contradiction names the record the evidence supports
		}
		if len(p.Evidence.ProbeRuns) > 0 {
			want = append(want, "evidence: ")
		}
		header := fmt.Sprintf("Review %d/22", pos)
		s.wait(func(all, recent []byte) bool {
			if !bytes.Contains(recent, []byte(header)) {
				return false
			}
			for _, w := range want {
				if !bytes.Contains(all, []byte(w)) {
					return false
				}
			}
			return true
		}, fmt.Sprintf("%s with %q", header, want))
	}
	if ops[review.OpMerge] != 2 || ops[review.OpDelete] != 5 {
		t.Errorf("hygiene queued %v, want 2 merges and 5 deletes", ops)
	}
	if bytes.Contains(s.all, []byte("new proposal")) {
		t.Error("the change watcher announced hygiene's own proposals as new ones from elsewhere")
	}
	s.typ("H") // incremental: no record changed since the first run
	s.waitFor("hygiene of 0 changed records: nothing new")
	if n := len(hygieneQueued(t, uitest.Store(t, deps))); n != 7 {
		t.Errorf("a second run left %d hygiene proposals, want the same 7", n)
	}
	s.quit()
}

// TestHygieneProgress: while the run is in flight the footer's status line
// shows it, a second H does not start another, and the run's end replaces
// the progress with its summary.
func TestHygieneProgress(t *testing.T) {
	t.Parallel()
	deps := serviceWorld(t)
	m := started(t, deps, 160, 40).(*Model)
	_, cmd := m.Update(uitest.Key("H"))
	if !strings.Contains(m.View(), "hygiene: looking for duplicate, contradicting, stale and unused records…") {
		t.Fatalf("no progress in the footer while hygiene runs:\n%s", m.View())
	}
	_, again := m.Update(uitest.Key("H"))
	for _, msg := range uitest.Run(again) {
		if st, ok := msg.(common.Status); !ok || st.Text != "hygiene is already running" {
			t.Errorf("a second H while running yielded %#v", msg)
		}
	}
	var done tea.Msg
	for _, msg := range uitest.Run(cmd) {
		if _, ok := msg.(hygieneDone); ok {
			done = msg
		}
	}
	if done == nil {
		t.Fatal("the run's Cmd yielded no end")
	}
	m = drive(t, m, done).(*Model)
	v := m.View()
	if strings.Contains(v, "looking for") || !strings.Contains(v, "hygiene: 7 proposals queued") {
		t.Errorf("after the run the footer shows:\n%s", v)
	}
	if m.hygiene != nil {
		t.Error("the run is still marked in flight")
	}
}
