package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/curator/llmtest"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// modelServer is the scripted model server (curator/llmtest) with the
// curator settings these tests use.
type modelServer struct{ *llmtest.Server }

type (
	modelReply = llmtest.Reply
	toolCall   = llmtest.Call
)

func toolCalls(calls ...toolCall) modelReply { return llmtest.Calls(calls...) }

func jsonArgs(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func newModelServer(t *testing.T, replies ...modelReply) *modelServer {
	return &modelServer{llmtest.New(t, replies...)}
}

func (f *modelServer) requests() []string { return f.Requests() }

// settings points the curator at f with short limits.
func (f *modelServer) settings(retries int) curator.Settings {
	return curator.Settings{BaseURL: f.BaseURL(), APIKey: "none", Model: "test-model",
		HTTPTimeout: 10 * time.Second, RunTimeout: 30 * time.Second, MaxRetries: retries}
}

const countQuery = "SELECT COUNT(*) FROM items_g1"

// createScript is a whole successful session: a real SQL probe on shop,
// one propose_create resting on it, finish. The second reply waits for
// gate, so that a test can look at the screen mid-run.
func createScript(gate chan struct{}) []modelReply {
	record := map[string]any{
		"lemma": "In shop, count the catalogue's items with " + countQuery + ".", "category": "procedure",
		"scope":   map[string]any{"env": "shop", "tags": []string{"items", "g1"}, "task_family": "counting"},
		"trigger": "a task asks how many items g1 lists", "steps": []string{countQuery}, "confidence": 0.8,
	}
	propose := toolCalls(toolCall{ID: "call_2", Name: "propose_create", Args: jsonArgs(map[string]any{
		"record": record, "rationale": "the probe counted the items",
		"evidence": []map[string]int{{"from": 1, "to": 1}}, "probe_runs": []string{},
	})})
	propose.Gate = gate
	return []modelReply{
		toolCalls(toolCall{ID: "call_1", Name: "sql_query", Args: jsonArgs(map[string]any{"env": "shop", "sql": countQuery})}),
		propose,
		toolCalls(toolCall{ID: "call_3", Name: "finish", Args: jsonArgs(map[string]any{"summary": "one create"})}),
	}
}

var runIDRe = regexp.MustCompile(`curator run (cur_[0-9T]+_[0-9a-f]+) made 1 proposal`)

// waitRe waits until the program has printed a match of re and every one
// of texts since the last wait, and returns the match's groups.
func (s *session) waitRe(re *regexp.Regexp, texts ...string) []string {
	s.t.Helper()
	var m [][]byte
	s.wait(func(_, recent []byte) bool {
		m = re.FindSubmatch(recent)
		for _, text := range texts {
			if !bytes.Contains(recent, []byte(text)) {
				return false
			}
		}
		return m != nil
	}, re.String()+fmt.Sprintf(" and %q", texts))
	out := make([]string, len(m))
	for i, g := range m {
		out[i] = string(g)
	}
	return out
}

// checkCreated checks that the queue holds one proposal more than the
// sample's, made by run from trajectory traj, and that the SQL probe run is
// attached to it as evidence.
func checkCreated(t *testing.T, st *store.Store, f *modelServer, run, traj string) {
	t.Helper()
	q, err := st.Queue()
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != len(sample.ProposalIDs)+1 {
		t.Fatalf("the queue has %d proposals, want %d", len(q), len(sample.ProposalIDs)+1)
	}
	var p *review.Proposal
	for i := range q {
		if q[i].CuratorRun == run {
			if p != nil {
				t.Fatalf("run %s made %s and %s", run, p.ID, q[i].ID)
			}
			p = &q[i]
		}
	}
	if p == nil {
		t.Fatalf("no queued proposal comes from run %s", run)
	}
	if p.Op != review.OpCreate || p.Trajectory != traj || p.Record == nil || !strings.Contains(p.Record.Lemma, countQuery) {
		t.Errorf("proposal %s: %s from %s, record %+v", p.ID, p.Op, p.Trajectory, p.Record)
	}
	runs, err := st.ProbeRunsFor("proposal", p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || len(p.Evidence.ProbeRuns) != 1 || runs[0].ID != p.Evidence.ProbeRuns[0] {
		t.Fatalf("proposal %s evidence %v, probe runs %+v; want the one SQL probe", p.ID, p.Evidence.ProbeRuns, runs)
	}
	res := runs[0].Result
	if res.Env != "shop" || res.Input != countQuery || res.Error != "" || len(res.Rows) != 1 {
		t.Errorf("probe run %s: env %s, input %q, error %q, rows %v", runs[0].ID, res.Env, res.Input, res.Error, res.Rows)
	}
	// The model was told what the probe found.
	reqs := f.requests()
	if len(reqs) != 3 || !strings.Contains(reqs[1], `\"rows\":[[`) || !strings.Contains(reqs[1], runs[0].ID) {
		t.Errorf("%d requests; the second does not carry the probe's rows:\n%.2000s", len(reqs), reqs[min(1, len(reqs)-1)])
	}
}

// TestCurateFromReview presses c on the first proposal: the curator's SQL
// call shows in the probes pane while the run waits on the model, and when
// it ends the footer counts its proposal and the queue has grown by one.
func TestCurateFromReview(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	gate := make(chan struct{})
	f := newModelServer(t, createScript(gate)...)
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release) // before the server closes, should the test stop early
	w.deps.Curator = common.NewCurator(f.settings(1))
	first, err := w.store.Proposal(sample.ProposalIDs[0])
	if err != nil {
		t.Fatal(err)
	}
	s := start(t, w.deps, 200, 60)
	s.waitFor("Review 1/15", "Candidate "+first.ID)

	s.typ("c")
	s.waitFor("Send " + first.Trajectory + " to the model test-model at " + f.BaseURL() + "?") // the session's first run asks
	s.typ("y")
	out := s.waitFor("Curator run cur_", "→ sql_query", countQuery, "← 1 row (run_cur_")
	if bytes.Contains(out, []byte("made 1 proposal")) {
		t.Fatal("the run ended before the model answered the second request")
	}
	s.typ("c") // a second run while one is going is refused
	s.waitFor("is still going; wait for it to end")

	release()
	got := s.waitRe(runIDRe, "Review 1/16")
	s.quit()
	checkCreated(t, w.store, f, got[1], first.Trajectory)
}

// TestCurateFailure: the model server answers 500 to everything; the
// footer says so and the queue is unchanged.
func TestCurateFailure(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	f := newModelServer(t) // no script: every request gets 500
	w.deps.Curator = common.NewCurator(f.settings(1))
	s := start(t, w.deps, 200, 60)
	s.waitFor("Review 1/15", "Candidate "+sample.ProposalIDs[0])
	s.typ("c")
	s.waitFor("to the model test-model at")
	s.typ("y")
	s.waitFor("nothing saved — curator: the model server at "+f.BaseURL()+" answered 500", "twice",
		"✘ failed; nothing was saved")
	s.quit()
	if n := len(f.requests()); n != 2 {
		t.Errorf("the server saw %d requests, want 2 (one retry)", n)
	}
	q, err := w.store.Queue()
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != len(sample.ProposalIDs) {
		t.Errorf("the queue has %d proposals after a failed run, want %d", len(q), len(sample.ProposalIDs))
	}
}

// TestCurateFromTrajectories presses c on the trajectories screen: the
// run shows in the detail, and the review screen's queue (its tab title)
// grows by one when it ends.
func TestCurateFromTrajectories(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	// Hold the model's second answer until the live events were seen, so
	// the end of the run cannot fall inside that wait's output.
	gate := make(chan struct{})
	f := newModelServer(t, createScript(gate)...)
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release)
	w.deps.Curator = common.NewCurator(f.settings(1))
	trajs, err := w.store.Trajectories()
	if err != nil {
		t.Fatal(err)
	}
	s := start(t, w.deps, 200, 60)
	s.waitFor("Review 1/15")
	s.typ("4")
	s.waitFor("Detail " + trajs[0].ID)
	s.typ("c")
	s.waitFor("Send " + trajs[0].ID + " to the model test-model")
	s.typ("y")
	s.waitFor("Curator run cur_", "→ sql_query", countQuery, "← 1 row (run_cur_")
	release()
	got := s.waitRe(runIDRe, "Review 1/16")
	s.quit()
	checkCreated(t, w.store, f, got[1], trajs[0].ID)
}

// A curator run's proposal commits before the run ends, so the change
// watcher can see it first: it is this program's own (the run's id is
// one its Curator started), not "1 new proposal" from elsewhere. The same
// change seen by another program is news.
func TestCuratorRunsProposalIsNotNews(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	f := newModelServer(t, createScript(nil)...)
	cur := common.NewCurator(f.settings(1))
	cur.Consent()
	svc := w.deps.Service
	seq, err := svc.LastSeq()
	if err != nil {
		t.Fatal(err)
	}
	trajs, err := w.store.Trajectories()
	if err != nil {
		t.Fatal(err)
	}
	cmd, err := cur.Start(w.deps, []string{trajs[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	// Run the run's commands as the program would, until it is done.
	update := func(msg tea.Msg) tea.Cmd { c, _ := cur.Update(msg); return c }
	var done *common.CuratorDone
	for _, first := range uitest.Run(cmd) {
		for _, msg := range uitest.Drive(t, update, first) {
			if d, ok := msg.(common.CuratorDone); ok {
				done = &d
			}
		}
	}
	if done == nil || done.Err != nil {
		t.Fatalf("the run did not end well: %+v", done)
	}
	cs, err := svc.ChangesSince(seq)
	if err != nil || cs.Empty() {
		t.Fatalf("changes since the run: %+v, %v", cs, err)
	}
	if got := describe(svc, cs, w.deps.Operator, &ownProposals{curator: cur}); got != "" {
		t.Errorf("the watcher says %q of this program's own curator run", got)
	}
	if got := describe(svc, cs, w.deps.Operator, &ownProposals{curator: common.NewCurator(f.settings(1))}); got != "1 new proposal" {
		t.Errorf("another program's watcher says %q, want 1 new proposal", got)
	}
}
