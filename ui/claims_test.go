package ui

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// waitClaims waits until operator holds exactly the claims want.
func waitClaims(t *testing.T, b app.Store, operator string, want ...string) {
	t.Helper()
	var got []string
	for deadline := time.Now().Add(uitest.WaitTimeout); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if got = uitest.ClaimsOf(t, b, operator); slices.Equal(got, want) {
			return
		}
	}
	t.Fatalf("%s holds claims on %v, want %v", operator, got, want)
}

// TestClaimsInTheQueue drives the real review screen: the two proposals
// alice claimed are stepped over and counted in the title; the shown one
// is claimed by the TUI's operator; a decision moves the claim to the next
// proposal; quitting with q releases it.
func TestClaimsInTheQueue(t *testing.T) {
	t.Parallel()
	deps, b, q := uitest.ClaimWorld(t)
	for _, p := range q[:2] {
		if _, err := b.Claim(p.ID, "alice", review.ClaimTTL); err != nil {
			t.Fatal(err)
		}
	}
	tm := teatest.NewTestModel(t, New(deps), teatest.WithInitialTermSize(200, 50))
	n := len(q) - 2
	uitest.WaitFor(t, tm, "Candidate "+q[2].ID, "Review 1/"+strconv.Itoa(n)+" · 2 being reviewed by others")
	waitClaims(t, b, "tester", q[2].ID)
	waitClaims(t, b, "alice", q[0].ID, q[1].ID) // the TUI took none of alice's

	tm.Type("r") // reject the shown proposal
	uitest.WaitFor(t, tm, "rejected "+q[2].ID)
	waitClaims(t, b, "tester", q[3].ID)

	tm.Type("q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	waitClaims(t, b, "tester") // released on the way out
	waitClaims(t, b, "alice", q[0].ID, q[1].ID)
}

// TestExpiredClaimReturns: a claim whose TTL passed stops hiding its
// proposal at the next reload.
func TestExpiredClaimReturns(t *testing.T) {
	t.Parallel()
	deps, b, q := uitest.ClaimWorld(t)
	if _, err := b.Claim(q[0].ID, "alice", 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	tm := uitest.Start(t, New(deps), 200, 50)
	uitest.WaitFor(t, tm, "Candidate "+q[1].ID, "Review 1/"+strconv.Itoa(len(q)-1)+" · 1 being reviewed by others")
	waitClaims(t, b, "tester", q[1].ID)
	for len(uitest.ClaimsOf(t, b, "alice")) > 0 {
		time.Sleep(50 * time.Millisecond)
	}
	tm.Send(common.QueueChanged{})                          // a reload, as the change feed's would be
	uitest.WaitFor(t, tm, "Review 2/"+strconv.Itoa(len(q))) // q[0] is back, before the shown q[1]
}
