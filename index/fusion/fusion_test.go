package fusion

import (
	"math"
	"slices"
	"testing"
)

func ids(fs []Fused) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.ID
	}
	return out
}

func rank(r *int) int {
	if r == nil {
		return 0
	}
	return *r
}

// BM25 a b c d, vectors d e a, k = 60, worked by hand:
//
//	a 1/61 + 1/63 = 0.0322664    d 1/64 + 1/61 = 0.0320184
//	b 1/62        = 0.0161290    e 1/62        = 0.0161290 (b first: it has a BM25 rank)
//	c 1/63        = 0.0158730
func TestHybridByHand(t *testing.T) {
	got := Hybrid([]string{"a", "b", "c", "d"}, []string{"d", "e", "a"}, 0)
	want := []struct {
		id        string
		bm25, vec int
		score     float64
	}{
		{"a", 1, 3, 0.0322664},
		{"d", 4, 1, 0.0320184},
		{"b", 2, 0, 0.0161290},
		{"e", 0, 2, 0.0161290},
		{"c", 3, 0, 0.0158730},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", ids(got))
	}
	for i, w := range want {
		g := got[i]
		if g.ID != w.id || rank(g.BM25Rank) != w.bm25 || rank(g.VectorRank) != w.vec || math.Abs(g.Score-w.score) > 5e-7 || g.Score != g.RRF {
			t.Errorf("%d: got %s bm25 %d vector %d score %.7f, want %s %d %d %.7f",
				i, g.ID, rank(g.BM25Rank), rank(g.VectorRank), g.Score, w.id, w.bm25, w.vec, w.score)
		}
	}
	if got[1].BM25Rank == nil || got[3].BM25Rank != nil || got[4].VectorRank != nil {
		t.Error("a rank missing from a list must be nil")
	}
	// k changes the fusion: y fourth in both lists beats x first in one
	// at k = 60 (2/64 > 1/61), not at k = 1 (2/5 < 1/2).
	bm, vec := []string{"x", "a", "b", "y"}, []string{"c", "d", "e", "y"}
	if g := Hybrid(bm, vec, 0); g[0].ID != "y" {
		t.Errorf("k=60: %v", ids(g))
	}
	if g := Hybrid(bm, vec, 1); g[0].ID != "x" {
		t.Errorf("k=1: %v", ids(g))
	}
	// A repeated id counts at its first rank.
	if g := Hybrid([]string{"a", "a", "b"}, nil, 0); len(g) != 2 || math.Abs(g[1].Score-1.0/63) > 1e-12 {
		t.Errorf("repeated id: %+v", g)
	}
	if g := Hybrid(nil, nil, 0); len(g) != 0 {
		t.Errorf("no lists: %v", g)
	}
}

// Weighting is a step of its own: from the fused list above, e's
// priority 5 (×1.5) lifts it over b; a suspect (×0.5) falls to
// 0.0161332, just over b; c retired drops out; confidence 0.5 with
// weight 0.4 takes d to ×0.8 = 0.0256147.
func TestWeight(t *testing.T) {
	fused := Hybrid([]string{"a", "b", "c", "d"}, []string{"d", "e", "a"}, 0)
	st := map[string]Standing{
		"a": {Confidence: 1, Suspect: true},
		"c": {Drop: true},
		"d": {Confidence: 0.5},
		"e": {Priority: 5, Confidence: 1},
	}
	w := Weights{Priority: 0.1, Confidence: 0.4, Suspect: 0.5, MinFactor: 0.1}
	got := Weight(fused, w, func(id string) (Standing, bool) { s, ok := st[id]; return s, ok })
	if want := []string{"d", "e", "a", "b"}; !slices.Equal(ids(got), want) {
		t.Fatalf("order %v, want %v", ids(got), want)
	}
	for _, c := range []struct {
		i     int
		score float64
	}{{0, 0.0256147}, {1, 0.0241935}, {2, 0.0161332}, {3, 0.0161290}} {
		if math.Abs(got[c.i].Score-c.score) > 5e-7 {
			t.Errorf("%s: score %.7f, want %.7f", got[c.i].ID, got[c.i].Score, c.score)
		}
	}
	if fused[0].Score != fused[0].RRF || len(fused) != 5 {
		t.Error("Weight changed its input")
	}
	// Weighting twice does not compound: it starts from RRF each time.
	again := Weight(got, w, func(id string) (Standing, bool) { s, ok := st[id]; return s, ok })
	if !slices.Equal(ids(again), ids(got)) || again[0].Score != got[0].Score {
		t.Error("a second Weight moved the scores")
	}
	// Priority far below zero is floored at MinFactor.
	low := Weight(fused, w, func(id string) (Standing, bool) { return Standing{Priority: -100, Confidence: 1}, true })
	if math.Abs(low[0].Score-low[0].RRF*0.1) > 1e-12 {
		t.Errorf("floored priority: %v", low[0])
	}
}
