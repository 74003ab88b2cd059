package mcpserver_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/ui/mcpserver"
)

// A proposal queued while its target is being retired never brings the
// record back (issue 23 item 18). An agent's serve process proposes
// updates citing a large trajectory (checking the cited steps takes a
// while, after the targets were read) while this process retires each
// target partway through; whichever way each race goes, no update is
// accepted onto a retired record.
func TestBinaryProposalRacingARetireNeverRevives(t *testing.T) {
	t.Parallel()
	dir := bankDir(t)
	s, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	delays := []time.Duration{20 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond}
	var recs []review.Record
	for i := range delays {
		recs = append(recs, review.Record{ID: fmt.Sprintf("mem_r%d", i), Lemma: fmt.Sprintf("Race fact %d holds.", i), Category: review.Fact, Confidence: 0.5, Status: review.Active})
	}
	steps := make([]review.Step, 32)
	for i := range steps {
		steps[i] = review.Step{Role: "tool", Content: strings.Repeat("observation ", 20000)}
	}
	if err := s.PutRecords(recs, "test", "fixture"); err != nil {
		t.Fatal(err)
	}
	if err := s.PutTrajectories([]review.Trajectory{{ID: "big", Task: "a long run", Steps: steps}}); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "racer", Version: "1"}, nil).Connect(context.Background(),
		&mcp.CommandTransport{Command: exec.Command(memreviewBin, "--bank", dir, "serve")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	var queued []string
	for i, r := range recs {
		done := make(chan string, 1)
		go func() {
			var out mcpserver.ProposeOut
			e := call(t, cs, "memory_propose", map[string]any{"op": "update", "targets": []string{r.ID}, "rationale": "seen in the run",
				"trajectory_id": "big", "steps": map[string]any{"from": 1, "to": 2},
				"record": map[string]any{"lemma": "The agent's revived lemma.", "category": "fact", "confidence": 0.9}}, &out)
			if e != "" {
				done <- "refused: " + e
				return
			}
			done <- out.ProposalID
		}()
		time.Sleep(delays[i])
		if _, err := s.DecideRecords(context.Background(), review.RecordRequest{Verb: review.Delete, IDs: []string{r.ID}, Operator: "ana", Note: "wrong"}); err != nil {
			t.Fatal(err)
		}
		got := <-done
		t.Logf("%s retired after %v: %s", r.ID, delays[i], got)
		if strings.HasPrefix(got, "refused: ") {
			if !strings.Contains(got, "retired") {
				t.Fatalf("%s: refused for another reason: %s", r.ID, got)
			}
			continue
		}
		queued = append(queued, got)
	}
	for _, id := range queued {
		out, err := exec.Command(memreviewBin, "--bank", dir, "--operator", "bo", "decide", id, "accept").CombinedOutput()
		if err == nil {
			t.Errorf("decide %s accept succeeded on a retired target:\n%s", id, out)
		}
	}
	for _, r := range recs {
		got, err := s.Record(r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != review.Retired || got.Lemma != r.Lemma || got.Version != 2 {
			t.Errorf("%s after the race: v%d %s %q, want v2 retired %q", r.ID, got.Version, got.Status, got.Lemma, r.Lemma)
		}
	}
}
