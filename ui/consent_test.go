package ui

import (
	"testing"
	"time"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui/common"
)

// TestCurateAsksFirst: the session's first c names the model server and
// the model and sends nothing until y: n leaves the server untouched, a
// second c asks again, and y starts the run, which reaches the server;
// a later run does not ask (issue 23 item 6).
func TestCurateAsksFirst(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	f := newModelServer(t) // every request gets 500: the run fails at once
	w.deps.Curator = common.NewCurator(f.settings(-1))
	first, err := w.store.Proposal(sample.ProposalIDs[0])
	if err != nil {
		t.Fatal(err)
	}
	s := start(t, w.deps, 120, 40)
	s.waitFor("Candidate " + first.ID)
	s.typ("c")
	s.waitFor("Run the curator", "Send "+first.Trajectory+" to the model test-model at "+f.BaseURL()+"?", "y sends it")
	s.typ("n")
	s.waitFor("nothing was sent to the model server")
	time.Sleep(100 * time.Millisecond)
	if n := len(f.requests()); n != 0 {
		t.Fatalf("the model server got %d requests before the operator said y", n)
	}
	s.typ("c")
	s.waitFor("Send " + first.Trajectory + " to the model test-model")
	s.typ("y")
	s.waitFor("nothing saved — curator: the model server at " + f.BaseURL() + " answered 500")
	if n := len(f.requests()); n != 1 {
		t.Fatalf("after y the model server got %d requests, want 1", n)
	}
	s.typ("c") // consented: no question
	s.wait(func(_, _ []byte) bool { return len(f.requests()) == 2 }, "the second run's request")
	s.quit()
}

// TestCurateWithNoServerConfigured: with no endpoint and no key the
// curator does not start and the footer says how to configure one.
func TestCurateWithNoServerConfigured(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.deps.Curator = common.NewCurator(curator.Settings{BaseURL: curator.DefaultBaseURL, Model: curator.DefaultModel, NoEndpoint: true})
	s := start(t, w.deps, 200, 60)
	s.waitFor("Candidate " + sample.ProposalIDs[0])
	s.typ("c")
	s.waitFor("curator: no model server is configured, so nothing was sent. Set OPENAI_BASE_URL")
	s.typ("!")
	s.waitFor("OPENAI_API_KEY if it needs a key, or base_url and model under [curator]")
	s.quit()
	if r := w.deps.Curator.Run(); r != nil {
		t.Errorf("a run started: %+v", r)
	}
}
