package store_test

import (
	"testing"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/review/store/storetest"
)

func TestSQLiteClaims(t *testing.T) { storetest.RunClaims(t, newSQLite) }

// A claim expires at its time whatever the fractions of a second look like
// as text: stored times have a fixed width, so "…:00.5" and "…:00.55"
// compare as times do (with RFC 3339's trailing zeros cut, ".5Z" sorted
// after ".55Z" and an expired claim stayed listed).
func TestClaimExpiryComparesTimesNotText(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 10, 0, 0, 460_000_000, time.UTC)
	s, err := store.Create(t.TempDir(), store.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ps := []review.Proposal{{Op: review.OpCreate, Record: &review.Record{Lemma: "prices are in cents", Category: review.Fact, Confidence: 0.8}, Rationale: "seen"}}
	if err := s.AddProposals(ps, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Claim(ps[0].ID, "alice", 40*time.Millisecond); err != nil { // expires at :00.5
		t.Fatal(err)
	}
	now = now.Add(90 * time.Millisecond) // :00.55, after the expiry
	if claims, err := s.Claims(); err != nil || len(claims) != 0 {
		t.Fatalf("claims after the expiry = %+v, %v; want none", claims, err)
	}
	now = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC).Add(-time.Millisecond) // before it
	if claims, err := s.Claims(); err != nil || len(claims) != 1 {
		t.Fatalf("claims before the expiry = %+v, %v; want alice's", claims, err)
	}
}

func TestSQLiteAgents(t *testing.T) {
	t.Parallel()
	storetest.RunAgents(t, func(t *testing.T) storetest.AgentStore {
		s := newSQLite(t)
		return s.(*store.Store)
	})
}
