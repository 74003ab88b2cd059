package hygiene

import (
	"context"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
)

// A finding a person rejected is not proposed again while its records are
// at the versions it named; once one has changed it is new evidence and
// is proposed (issue 23 item 24).
func TestRejectedFindingIsNotProposedAgain(t *testing.T) {
	recs := chain(2, 3)
	run := func(rejected ...review.Proposal) *Report {
		t.Helper()
		rep, err := Run(context.Background(), Input{Records: recs, Rejected: rejected, Now: time.Now()}, Options{Only: Duplicates})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Findings) != 1 {
			t.Fatalf("%d findings, want the one merge", len(rep.Findings))
		}
		return rep
	}
	p := run().Findings[0].Proposal
	p.ID, p.Status = "prop_0009", review.Rejected
	if rep := run(p); rep.Findings[0].Rejected != "prop_0009" || len(rep.New()) != 0 {
		t.Fatalf("after the rejection: rejected %q, %d new", rep.Findings[0].Rejected, len(rep.New()))
	}
	recs[1].Version = 2 // edited since the rejection
	if rep := run(p); rep.Findings[0].Rejected != "" || len(rep.New()) != 1 {
		t.Fatalf("after an edit: rejected %q, %d new", rep.Findings[0].Rejected, len(rep.New()))
	}
}
