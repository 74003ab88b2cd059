package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/curator/llmtest"
	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

// scriptedLLM is a local OpenAI-compatible chat-completions server
// (llmtest) that answers with the given tool calls, one turn each, and
// returns what the model was sent.
func scriptedLLM(t *testing.T, turns ...[][2]string) (*llmtest.Server, func() []string) {
	var replies []llmtest.Reply
	for _, turn := range turns {
		var calls []llmtest.Call
		for _, c := range turn {
			calls = append(calls, llmtest.Call{Name: c[0], Args: c[1]})
		}
		replies = append(replies, llmtest.Calls(calls...))
	}
	srv := llmtest.New(t, replies...)
	return srv, srv.Requests
}

// The curator runs through the service: memory_search goes through the
// shared index, its proposal joins the queue and is searchable at once.
func TestCurateThroughTheService(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	ts, err := svc.Trajectories()
	if err != nil || len(ts) == 0 || ts[0].Distilled == nil {
		t.Fatalf("sample trajectories: %d, %v (need a distilled one)", len(ts), err)
	}
	traj := ts[0]
	rec := `{"lemma":"Curated through the service: prices need dividing by 100.","category":"fact",` +
		`"scope":{"env":"shop","tags":[],"task_family":""},"trigger":"","steps":[],"confidence":0.7}`
	srv, seen := scriptedLLM(t,
		[][2]string{{"memory_search", `{"query":"prices cents","k":5}`}},
		[][2]string{{"propose_create", `{"record":` + rec + `,"rationale":"seen in the run","evidence":[{"from":1,"to":1}],"probe_runs":[]}`}},
		[][2]string{{"finish", `{"summary":"one create"}`}},
	)
	set := curator.Settings{BaseURL: srv.URL, Model: "test-model", MaxRetries: -1}
	run, err := svc.Curate(context.Background(), set, []string{traj.ID}, curator.Options{RunID: "cur_svc"})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Proposals) != 1 || run.Operator != "ana" {
		t.Fatalf("run: %d proposals, operator %q", len(run.Proposals), run.Operator)
	}
	reqs := seen()
	if len(reqs) != 3 || !strings.Contains(reqs[1], "mem_0002") {
		t.Fatalf("the model's memory_search result did not come from the index (want mem_0002 among the hits): %d requests", len(reqs))
	}
	p, err := svc.Proposal(run.Proposals[0].ID)
	if err != nil || p.Status != review.Pending || p.CuratorRun != "cur_svc" {
		t.Fatalf("queued proposal = %+v, %v", p, err)
	}
	res, err := svc.Search(app.SearchRequest{Query: "id:" + index.EscapeQuery(p.ID), Type: "proposal"})
	if err != nil || res.Total != 1 {
		t.Fatalf("the curator's proposal is not searchable at once: %v, %v", total(res), err)
	}
	un, err := svc.Uncurated()
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range un {
		if id == traj.ID {
			t.Fatalf("%s is still listed as uncurated", traj.ID)
		}
	}
}
