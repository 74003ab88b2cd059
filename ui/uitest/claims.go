package uitest

import (
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
)

// ClaimWorld is a fresh sample bank with the service wired as main wires
// it (the TUI's operator is "tester"), its backend and its open queue.
func ClaimWorld(tb testing.TB) (common.Deps, app.Store, []review.Proposal) {
	tb.Helper()
	deps := OpenSample(tb)
	q, err := deps.Service.Queue()
	if err != nil || len(q) < 5 {
		tb.Fatalf("queue: %d proposals, %v", len(q), err)
	}
	return deps, Store(tb, deps), q
}

// ClaimsOf returns the proposals operator holds a live claim on.
func ClaimsOf(tb testing.TB, b app.Store, operator string) []string {
	tb.Helper()
	cs, err := b.Claims()
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, c := range cs {
		if c.Operator == operator {
			out = append(out, c.Proposal)
		}
	}
	return out
}
