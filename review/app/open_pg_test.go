package app_test

import (
	"context"
	"fmt"
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
	url := pgtest.NewDB(t) // the package's server (TestMain runs through pgtest.Main)
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The change followers poll once an hour: only LISTEN/NOTIFY can tell
	// bob of alice's commits within the test's seconds.
	open := func(op string) (*app.Service, string) {
		svc, err := app.Open(ctx, url, app.Options{Operator: op, WatchEvery: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { svc.Close() })
		return svc, svc.Info().ID
	}
	alice, id := open("alice")
	bob, _ := open("bob")

	seq, _ := bob.LastSeq()
	watch := bob.Watch(ctx, seq)
	propose := func(lemma string) review.Proposal {
		t.Helper()
		ps := []review.Proposal{{Op: review.OpCreate, Rationale: "seen twice",
			Record: &review.Record{Lemma: lemma, Category: review.Convention, Confidence: 0.8}}}
		if err := alice.AddProposals(ps, nil); err != nil {
			t.Fatal(err)
		}
		return ps[0]
	}
	// Alice commits until bob's listener is up and hears one (the first
	// may come before LISTEN); from then on each commit reaches bob at once.
	heard := false
	for i := 0; !heard; i++ {
		if i == 50 {
			t.Fatal("bob's listener never heard alice's commits in 10 s")
		}
		propose(fmt.Sprintf("warm-up %d", i))
		select {
		case <-watch:
			heard = true
		case <-time.After(200 * time.Millisecond):
		}
	}
	p := propose("warehouse codes are zero-padded to six digits")
	select {
	case cs := <-watch:
		if len(cs.Changes) != 1 || cs.Changes[0].ID != p.ID {
			t.Fatalf("bob watched %+v, want alice's %s", cs, p.ID)
		}
	case <-time.After(time.Second):
		t.Fatal("bob did not see alice's proposal within 1 s of its commit")
	}
	ps := []review.Proposal{p}
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
	if _, err := alice.AddEnv(ctx, probe.Env{Name: "shop", Kind: probe.KindSQL, Path: envDB}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, "config", "memreview", store.ConfigFile)); err != nil {
		t.Fatalf("the environment was not written to the operator's memreview.toml: %v", err)
	}
}
