package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
)

// RunClaims checks a Store's claims: one operator at a time, renewal,
// release, expiry, and that decided proposals drop out; each case on a
// bank of its own, the cases in parallel.
func RunClaims(t *testing.T, open Opener) {
	t.Run("ClaimsOneOperatorAtATime", func(t *testing.T) {
		t.Parallel()
		b := open(t)
		p1, p2 := claimFixture(t, b)
		c, err := b.Claim(p1, "alice", review.ClaimTTL)
		if err != nil {
			t.Fatal(err)
		}
		if c.Operator != "alice" || c.Proposal != p1 || c.Expires.Sub(b.Now()) < 4*time.Minute {
			t.Fatalf("claim %+v, want alice on %s for about 5 minutes", c, p1)
		}
		_, err = b.Claim(p1, "bob", review.ClaimTTL)
		var ce *review.ClaimedError
		if !errors.As(err, &ce) || ce.Claim.Operator != "alice" {
			t.Fatalf("bob's claim: %v, want a *ClaimedError naming alice", err)
		}
		if want := "being reviewed by alice"; !strings.Contains(err.Error(), want) {
			t.Fatalf("message %q lacks %q", err, want)
		}
		claims, err := b.Claims()
		if err != nil || len(claims) != 1 || claims[0].Operator != "alice" || claims[0].Proposal != p1 {
			t.Fatalf("claims %+v %v, want alice's on %s", claims, err, p1)
		}
		q, err := b.Queue()
		if err != nil {
			t.Fatal(err)
		}
		if got := review.Unclaimed(q, claims, "bob"); len(got) != 1 || got[0].ID != p2 {
			t.Fatalf("bob's queue %v, want only %s", ids(got), p2)
		}
		if got := review.Unclaimed(q, claims, "alice"); len(got) != 2 {
			t.Fatalf("alice's queue %v, want both (her own claim does not hide it)", ids(got))
		}
		// Renewal moves the expiry on; bob's release of alice's claim does nothing.
		time.Sleep(5 * time.Millisecond)
		c2, err := b.Claim(p1, "alice", review.ClaimTTL)
		if err != nil || !c2.Expires.After(c.Expires) {
			t.Fatalf("renewal %+v %v, want a later expiry than %v", c2, err, c.Expires)
		}
		if err := b.Release(p1, "bob"); err != nil {
			t.Fatal(err)
		}
		if claims, _ := b.Claims(); len(claims) != 1 {
			t.Fatalf("bob released alice's claim: %+v", claims)
		}
		if err := b.Release(p1, "alice"); err != nil {
			t.Fatal(err)
		}
		if claims, _ := b.Claims(); len(claims) != 0 {
			t.Fatalf("claims after release: %+v", claims)
		}
		if _, err := b.Claim(p1, "bob", review.ClaimTTL); err != nil {
			t.Fatalf("bob cannot claim a released proposal: %v", err)
		}
	})
	t.Run("ClaimExpires", func(t *testing.T) {
		t.Parallel()
		b := open(t)
		p1, _ := claimFixture(t, b)
		if _, err := b.Claim(p1, "alice", 30*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		before, _ := b.LastSeq()
		time.Sleep(60 * time.Millisecond)
		if claims, _ := b.Claims(); len(claims) != 0 {
			t.Fatalf("an expired claim is still listed: %+v", claims)
		}
		if _, err := b.Claim(p1, "bob", review.ClaimTTL); err != nil {
			t.Fatalf("bob cannot take over an expired claim: %v", err)
		}
		if after, _ := b.LastSeq(); after <= before {
			t.Fatalf("a claim left the change sequence at %d (was %d): other processes would not see it", after, before)
		}
	})
	t.Run("ClaimsFollowTheQueue", func(t *testing.T) {
		t.Parallel()
		b := open(t)
		p1, p2 := claimFixture(t, b)
		if _, err := b.Claim("prop_none", "alice", review.ClaimTTL); !errors.Is(err, review.ErrNotFound) {
			t.Fatalf("claim of a missing proposal: %v, want ErrNotFound", err)
		}
		if _, err := b.Claim(p1, "", review.ClaimTTL); err == nil {
			t.Fatal("a claim without an operator was accepted")
		}
		if _, err := b.Claim(p1, "alice", review.ClaimTTL); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Decide(context.Background(), review.DecideRequest{Proposal: p1, Verb: review.Reject, Operator: "alice"}); err != nil {
			t.Fatal(err)
		}
		if claims, _ := b.Claims(); len(claims) != 0 {
			t.Fatalf("a decided proposal is still listed as claimed: %+v", claims)
		}
		if _, err := b.Claim(p1, "bob", review.ClaimTTL); err == nil {
			t.Fatal("claimed a decided proposal")
		}
		if _, err := b.Claim(p2, "bob", review.ClaimTTL); err != nil {
			t.Fatal(err)
		}
	})
}

// claimFixture queues two create proposals and returns their ids.
func claimFixture(t *testing.T, b Store) (string, string) {
	t.Helper()
	ps := []review.Proposal{
		{Op: review.OpCreate, Record: &review.Record{Lemma: "orders join items on item_id", Category: review.Relation, Confidence: 0.9}, Rationale: "seen"},
		{Op: review.OpCreate, Record: &review.Record{Lemma: "prices are in cents", Category: review.Fact, Confidence: 0.8}, Rationale: "seen"},
	}
	if err := b.AddProposals(ps, nil); err != nil {
		t.Fatal(err)
	}
	return ps[0].ID, ps[1].ID
}
