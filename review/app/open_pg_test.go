package app_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/review/store/pg/pgtest"
)

// Two operators' services on one PostgreSQL bank: one's proposal reaches
// the other's Watch, the other's decision reaches the first's searches, and the
// environments and the index live in the operator's own XDG folders.
func TestOpenPGTwoOperators(t *testing.T) {
	srv := pgtest.Own(t)
	url, err := srv.CreateDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	open := func(op string) (*app.Service, string) {
		svc, err := app.Open(ctx, url, app.Options{Operator: op})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { svc.Close() })
		return svc, svc.Info().ID
	}
	alice, id := open("alice")
	bob, _ := open("bob")

	seq, _ := bob.LastSeq()
	watch := bob.Watch(ctx, seq, 0)
	wake := bob.Wake(ctx)
	if wake == nil {
		t.Fatal("a PostgreSQL bank offers no wake-up channel")
	}
	select { // the first wake-up says bob's listener is up
	case <-wake:
	case <-time.After(10 * time.Second):
		t.Fatal("bob's listener never started")
	}
	ps := []review.Proposal{{Op: review.OpCreate, Rationale: "seen twice",
		Record: &review.Record{Lemma: "warehouse codes are zero-padded to six digits", Category: review.Convention, Confidence: 0.8}}}
	if err := alice.AddProposals(ps, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-wake:
	case <-time.After(time.Second):
		t.Fatal("bob was not woken within 1 s of alice's commit")
	}
	select {
	case cs := <-watch:
		if len(cs.Changes) != 1 || cs.Changes[0].ID != ps[0].ID {
			t.Fatalf("bob watched %+v, want alice's %s", cs, ps[0].ID)
		}
	case <-time.After(time.Second):
		t.Fatal("bob did not see alice's proposal within 1 s")
	}
	d, err := bob.Decide(ctx, review.DecideRequest{Proposal: ps[0].ID, Verb: review.Accept})
	if err != nil {
		t.Fatal(err)
	}
	if d.Operator != "bob" {
		t.Fatalf("decision by %q, want bob", d.Operator)
	}
	if _, err := alice.Decide(ctx, review.DecideRequest{Proposal: ps[0].ID, Verb: review.Reject}); err == nil {
		t.Fatal("alice decided a proposal bob had already accepted")
	}
	// Another process's write reaches alice's searches on the index owner's
	// next poll (service: "everyone else's within a second").
	for i := 0; !slices.Contains(hits(t, alice, "zero-padded"), d.Record.ID); i++ {
		if i == 100 {
			t.Fatalf("alice's search still lacks bob's new record %s after 5 s", d.Record.ID)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(home, "cache", "memreview", id)); err != nil {
		t.Fatalf("no local index under $XDG_CACHE_HOME/memreview/%s: %v", id, err)
	}
	envDB := filepath.Join(home, "shop.db")
	if err := os.WriteFile(envDB, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.AddEnv("shop", probe.KindSQL, envDB); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, "config", "memreview", store.ConfigFile)); err != nil {
		t.Fatalf("the environment was not written to the operator's memreview.toml: %v", err)
	}
}
