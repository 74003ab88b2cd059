package app

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample"
)

// The standings cache against its reference, the store read each time,
// on a generated bank through rounds of retrieval-sized lookups and
// changes between them: a few checks failing or passing again (evicted
// one by one), then more than maxStandingsGap at once (the cache
// emptied). Every lookup must equal the store's answer.
func TestStandingsCacheMatchesStore(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "bank")
	// The store alone (sample.Synth, GenerateBank's records without its
	// search index): the test reads standings, never the index.
	if err := sample.Synth(dir, SynthOptions{Records: 6000, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := &Service{b: st}
	r := rand.New(rand.NewPCG(3, 4))
	id := func() string { return fmt.Sprintf("mem_%06d", 1+r.IntN(6000)) }
	check := func(round int) {
		t.Helper()
		for range 20 {
			ids := make([]string, 100)
			for i := range ids {
				ids[i] = id()
			}
			got, err := s.standingsCached(ids)
			if err != nil {
				t.Fatal(err)
			}
			want, err := st.RecordStandings(ids)
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, want) {
				for k, v := range want {
					if got[k] != v {
						t.Fatalf("round %d: %s cached %+v, the store says %+v", round, k, got[k], v)
					}
				}
				t.Fatalf("round %d: %d standings cached, the store has %d", round, len(got), len(want))
			}
		}
	}
	verdicts := []probe.Verdict{probe.FailsNow, probe.Same}
	for round := range 6 {
		check(round)
		n := 5
		if round == 4 {
			n = maxStandingsGap + 100
		}
		var rs []review.CheckResult
		seen := map[string]bool{}
		for len(rs) < n {
			if x := id(); !seen[x] {
				seen[x] = true
				rs = append(rs, review.CheckResult{RecordID: x, Verdict: verdicts[r.IntN(2)]})
			}
		}
		if err := st.SetCheckResults(rs); err != nil {
			t.Fatal(err)
		}
	}
	check(6)
	if len(s.scache.m) == 0 {
		t.Fatal("nothing was cached")
	}
}
