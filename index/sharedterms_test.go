package index

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/memreview/memreview/index/schema"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
)

// TestSharedTerms: SharedTerms gives the active records of the env and
// category asked for that hold one of the prefix terms (the rarest,
// until the rest weigh under the threshold), best K by the weight
// ln(1 + N/df) of the terms they hold, as a brute-force count over
// bleve's own term searches gives them; the record itself first. With
// Bound, the same hits in the same order over no more candidates, from
// the prefix or fewer of its terms (fewer in some searches here: the
// bound is taken).
func TestSharedTerms(t *testing.T) {
	t.Parallel()
	ix, recs := termsIndex(t)
	count, err := ix.idx.DocCount()
	if err != nil {
		t.Fatal(err)
	}
	holders := func(term string) map[string]bool {
		out := map[string]bool{}
		for _, h := range termSearch(t, ix, term, 10000).Hits {
			_, id := schema.SplitDocID(h.ID)
			out[id] = true
		}
		return out
	}
	byID := map[string]review.Record{}
	for _, r := range recs {
		byID[r.ID] = r
	}
	stopped := 0 // bounded searches that took fewer terms than the prefix
	for i := 0; i < len(recs); i += 97 {
		r := recs[i]
		if r.Status != review.Active {
			continue
		}
		terms := append(schema.Terms(r.Lemma+"\n"+r.Trigger+"\n"+strings.Join(r.Steps, "\n")), "zzznoterm")
		type term struct {
			text   string
			held   map[string]bool
			weight float64
		}
		var ts []term
		seen := map[string]bool{}
		for _, x := range terms {
			if h := holders(x); len(h) > 0 && !seen[x] {
				seen[x] = true
				ts = append(ts, term{x, h, math.Log(1 + float64(count)/float64(len(h)))})
			}
		}
		slices.SortFunc(ts, func(a, b term) int {
			if c := cmp.Compare(len(a.held), len(b.held)); c != 0 {
				return c
			}
			return cmp.Compare(a.text, b.text)
		})
		for _, threshold := range []float64{0.4, 0.9} {
			total := 0.0
			for _, x := range ts {
				total += x.weight
			}
			prefix, rest := 0, total
			for prefix < len(ts) && rest >= threshold*total {
				rest -= ts[prefix].weight
				prefix++
			}
			want := map[string]float64{} // every candidate's weight
			for k, x := range ts {
				for id := range x.held {
					c := byID[id]
					if c.Status != review.Active || c.Scope.Env != r.Scope.Env || c.Category != r.Category {
						continue
					}
					if _, ok := want[id]; ok || k < prefix {
						want[id] += x.weight
					}
				}
			}
			var best []float64
			for _, w := range want {
				best = append(best, w)
			}
			slices.SortFunc(best, func(a, b float64) int { return cmp.Compare(b, a) })
			for _, k := range []int{5, 40} {
				ids, stats, err := ix.SharedTerms(SharedTermsRequest{Terms: terms, Threshold: threshold, K: k, Env: r.Scope.Env, Category: string(r.Category)})
				if err != nil {
					t.Fatal(err)
				}
				if stats.Terms != len(ts) || stats.Prefix != prefix || stats.Candidates != len(want) {
					t.Fatalf("%s at %v: stats %+v; want %d terms, a prefix of %d, %d candidates", r.ID, threshold, stats, len(ts), prefix, len(want))
				}
				if len(ids) != min(k, len(want)) || len(ids) == 0 || ids[0] != r.ID {
					t.Fatalf("%s at %v, K %d: %v; want %d hits, itself first", r.ID, threshold, k, ids, min(k, len(want)))
				}
				for n, id := range ids {
					w, ok := want[id]
					if !ok || math.Abs(w-best[n]) > 1e-9 {
						t.Errorf("%s at %v, K %d: hit %d %s weighs %v (a candidate: %v); want the %d-th best, %v", r.ID, threshold, k, n, id, w, ok, n, best[n])
					}
				}
				bounded, bstats, err := ix.SharedTerms(SharedTermsRequest{Terms: terms, Threshold: threshold, K: k, Env: r.Scope.Env, Category: string(r.Category), Bound: true})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(bounded, ids) {
					t.Errorf("%s at %v, K %d, bounded: %v; want the hits unbounded, %v", r.ID, threshold, k, bounded, ids)
				}
				if bstats.Prefix != prefix || bstats.Taken > prefix || bstats.Candidates > len(want) {
					t.Errorf("%s at %v, K %d, bounded: stats %+v; want a prefix of %d, at most that many taken and at most %d candidates", r.ID, threshold, k, bstats, prefix, len(want))
				}
				if stats.Taken != prefix {
					t.Errorf("%s at %v, K %d: %d terms taken; want the prefix, %d", r.ID, threshold, k, stats.Taken, prefix)
				}
				if bstats.Taken < prefix {
					stopped++
				}
			}
		}
	}
	if stopped == 0 {
		t.Errorf("no bounded search took fewer terms than its prefix: the bound was not tried")
	}
	if _, _, err := ix.SharedTerms(SharedTermsRequest{Terms: []string{"x"}, Threshold: 1.5, K: 3}); err == nil || !strings.Contains(err.Error(), "threshold") {
		t.Errorf("threshold 1.5: %v; want an error naming the threshold", err)
	}
}

// TestSharedTermsAfterAChange: the searches keep the filters' and terms'
// postings of the snapshot they searched (the index's SharedTermsCache);
// a search after a change reads the new snapshot's, so a record retired
// since is no longer among the hits and one added is.
func TestSharedTermsAfterAChange(t *testing.T) {
	t.Parallel()
	src := newFake()
	recs := sample.SynthRecords(300, benchSeed)
	src.putRecord(recs...)
	ix := openOn(t, src)
	r := recs[10]
	terms := schema.Terms(r.Lemma + "\n" + r.Trigger + "\n" + strings.Join(r.Steps, "\n"))
	search := func() []string { // bounded, checked against unbounded
		t.Helper()
		var got [2][]string
		for i, bound := range []bool{false, true} {
			ids, _, err := ix.SharedTerms(SharedTermsRequest{Terms: terms, Threshold: 0.4, K: 10, Env: r.Scope.Env, Category: string(r.Category), Bound: bound})
			if err != nil {
				t.Fatal(err)
			}
			got[i] = ids
		}
		if !slices.Equal(got[0], got[1]) {
			t.Errorf("bounded %v; want the hits unbounded, %v", got[1], got[0])
		}
		return got[1]
	}
	if ids := search(); len(ids) == 0 || ids[0] != r.ID {
		t.Fatalf("before the change: %v; want %s first", ids, r.ID)
	}
	retired := r
	retired.Status = review.Retired
	cp := r
	cp.ID = "mem_copy_of_10"
	src.putRecord(retired, cp)
	if err := ix.Sync(); err != nil {
		t.Fatal(err)
	}
	if ids := search(); len(ids) == 0 || ids[0] != cp.ID || slices.Contains(ids, r.ID) {
		t.Errorf("after %s was retired and copied: %v; want the copy first, %s left out", r.ID, ids, r.ID)
	}
}
