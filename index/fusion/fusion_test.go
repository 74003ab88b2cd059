package fusion

import (
	"math"
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

// Weights.Factor is what retrieval multiplies a record's score by, in
// each list before fusing: priority 5 at 0.1 is ×1.5; a suspect at 0.5
// halves; confidence 0.5 at weight 0.4 is ×0.8; the factors multiply;
// a priority far below zero is floored at MinFactor; the zero Weights
// leave every score as it is.
func TestFactor(t *testing.T) {
	w := Weights{Priority: 0.1, Confidence: 0.4, Suspect: 0.5, MinFactor: 0.1}
	for _, c := range []struct {
		st   Standing
		want float64
	}{
		{Standing{Confidence: 1}, 1},
		{Standing{Priority: 5, Confidence: 1}, 1.5},
		{Standing{Confidence: 1, Suspect: true}, 0.5},
		{Standing{Confidence: 0.5}, 0.8},
		{Standing{Priority: 5, Confidence: 0.5, Suspect: true}, 1.5 * 0.8 * 0.5},
		{Standing{Priority: -100, Confidence: 1}, 0.1},
		{Standing{Confidence: 7}, 1}, // confidence is clamped to 0..1
		{Standing{Confidence: -1}, 0.6},
	} {
		if got := w.Factor(c.st); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%+v: factor %v, want %v", c.st, got, c.want)
		}
	}
	if got := (Weights{}).Factor(Standing{Priority: 9, Confidence: 0, Suspect: true}); got != 1 {
		t.Errorf("zero Weights: factor %v, want 1", got)
	}
}
