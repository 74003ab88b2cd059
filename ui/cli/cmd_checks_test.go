package cli

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/sample"
)

// live runs a proposal's probe live and saves it; decide accept then takes
// it as the check's baseline and says so; rebaseline takes a suspect
// record's verify output as its check's expectation, with the note.
func TestCLILiveAndRebaseline(t *testing.T) {
	t.Parallel()
	bank := filepath.Join(t.TempDir(), "bank")
	rawWorldTemplate.CopyTo(t, bank)
	out := must(t, mr(t, "", "--bank", bank, "live", sample.PropAcceptCreate)).stdout
	m := regexp.MustCompile(`(run_\d+) +same +(run_\d+) `).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("live: %s", out)
	}
	dec := must(t, mr(t, "", "--bank", bank, "decide", sample.PropAcceptCreate, "accept")).stdout
	if !strings.Contains(dec, "check 1 baseline from live run "+m[1]) {
		t.Fatalf("decide accept after live: %s", dec)
	}

	// A record whose check expects what the shop no longer gives.
	svc, err := app.Open(context.Background(), bank, app.Options{Operator: "tester"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r, _ := svc.Record(sample.RecOvergeneral)
	off := r.Clone()
	off.Checks[0].Expect.Rows = [][]any{{float64(1), float64(1)}}
	if _, err := svc.DecideRecords(ctx, review.RecordRequest{Verb: review.Edit, IDs: []string{r.ID}, Record: &off}); err != nil {
		t.Fatal(err)
	}
	if v, _ := svc.VerifyRecord(ctx, r.ID, 0); v.Held() != 0 {
		t.Fatal("the edited check still holds")
	}
	svc.Close()

	if bad := mr(t, "", "--bank", bank, "rebaseline", "--check", "0", r.ID); bad.code != 2 {
		t.Fatalf("--check 0: exit %d, %s", bad.code, bad.stderr)
	}
	re := must(t, mr(t, "", "--bank", bank, "rebaseline", "--version", "2", "--note", "looked at it", r.ID)).stdout
	if !strings.Contains(re, r.ID+" v2 → v3 active") {
		t.Fatalf("rebaseline: %s", re)
	}
	h := must(t, mr(t, "", "--bank", bank, "history", r.ID)).stdout
	if !regexp.MustCompile(`edit +by tester +dec_\d+ +re-baseline check 1 from the verify of `).MatchString(h) || !strings.Contains(h, "; looked at it") {
		t.Fatalf("history: %s", h)
	}
	if again := mr(t, "", "--bank", bank, "rebaseline", r.ID); again.code == 0 || !strings.Contains(again.stderr, "no check failed") {
		t.Fatalf("a second rebaseline: exit %d, %s", again.code, again.stderr)
	}
}
