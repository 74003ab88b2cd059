package hygiene

import (
	"strings"
	"testing"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/curator/llmtest"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample"
)

// With a curator model, the merged lemma is the model's; everything else
// stays the union of the members, and the model is told how each member's
// tasks ended.
func TestModelWritesMergedLemma(t *testing.T) {
	srv := llmtest.New(t, llmtest.Text(`"Merged by the model."`))
	srv.Cycle()
	s := sampleStore(t)
	llm := curator.NewLLM(curator.Settings{BaseURL: srv.URL, APIKey: "test", Model: "test-model", MaxRetries: 0})
	rep := runOn(t, s, Options{Only: Duplicates, Lemmas: ModelLemmas{LLM: llm}})
	if len(rep.Findings) != 2 {
		t.Fatalf("%d duplicate findings, want 2", len(rep.Findings))
	}
	for _, f := range rep.Findings {
		if f.Proposal.Record.Lemma != "Merged by the model." || !strings.Contains(f.Proposal.Rationale, "written by the curator model") {
			t.Errorf("%v: lemma %q, rationale %q", f.Records, f.Proposal.Record.Lemma, f.Proposal.Rationale)
		}
		checkStepsAndTags(t, s, f.Proposal)
	}
	joined := strings.Join(srv.Requests(), "\n")
	for _, w := range []string{sample.RecRevenueHeadA, "retrieved by 3 tasks: 2 passed, 1 failed", "prefer the advice of records retrieved by tasks that passed"} {
		if !strings.Contains(joined, w) {
			t.Errorf("the model was not told %q", w)
		}
	}
}

func checkStepsAndTags(t *testing.T, s *store.Store, p review.Proposal) {
	t.Helper()
	n := 0
	for _, id := range p.TargetIDs() {
		r, err := s.Record(id)
		if err != nil {
			t.Fatal(err)
		}
		n += len(r.Checks)
	}
	if len(p.Record.Checks) != n {
		t.Errorf("merged record has %d checks, members %d", len(p.Record.Checks), n)
	}
}
