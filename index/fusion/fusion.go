// Package fusion merges ranked lists of record ids: reciprocal rank
// fusion (Cormack, Clarke and Büttcher 2009) of BM25 and vector hits, and
// the factor by which what the bank knows of a record (priority,
// confidence, suspect) weighs its score in each list before they are
// fused. It owns no index; it imports only the standard library.
package fusion

import (
	"math"
	"sort"
)

// DefaultK is RRF's rank constant: a hit at rank r scores 1/(K + r).
const DefaultK = 60

// Fused is one record of the fused list.
type Fused struct {
	ID string `json:"id"`
	// BM25Rank and VectorRank are the record's 1-based rank in each list;
	// nil where that list did not find it.
	BM25Rank   *int `json:"bm25_rank"`
	VectorRank *int `json:"vector_rank"`
	// RRF is the fused score; Score, by which the list is ordered, equals
	// it.
	RRF   float64 `json:"rrf"`
	Score float64 `json:"score"`
}

// Hybrid fuses a BM25 list and a vector list (ids, best first; a
// repeated id counts at its first rank) with rank constant k (0:
// DefaultK). The result is ordered by fused score, ties to the better
// BM25 rank, then the smaller id.
func Hybrid(bm25, vector []string, k int) []Fused {
	if k <= 0 {
		k = DefaultK
	}
	by := map[string]*Fused{}
	var out []*Fused
	add := func(list []string, rank func(*Fused) **int) {
		for i, id := range list {
			f := by[id]
			if f == nil {
				f = &Fused{ID: id}
				by[id] = f
				out = append(out, f)
			}
			if *rank(f) != nil {
				continue
			}
			r := i + 1
			*rank(f) = &r
			f.RRF += 1 / float64(k+r)
		}
	}
	add(bm25, func(f *Fused) **int { return &f.BM25Rank })
	add(vector, func(f *Fused) **int { return &f.VectorRank })
	res := make([]Fused, len(out))
	for i, f := range out {
		f.Score = f.RRF
		res[i] = *f
	}
	sortFused(res)
	return res
}

// Weights says how much a record's standing moves its fused score. The
// zero value leaves scores as they are.
type Weights struct {
	// Priority: the score is multiplied by max(MinFactor, 1 + Priority ×
	// priority), as BM25 retrieval does today (0.1).
	Priority float64
	// Confidence: multiplied by (1 - Confidence + Confidence × confidence),
	// so confidence 1 keeps the score and 0 takes Confidence off it.
	Confidence float64
	// Suspect multiplies the score of a record whose check fails now (0.5
	// today); 0 leaves it.
	Suspect float64
	// MinFactor floors the priority factor (0.1 today).
	MinFactor float64
}

// Standing is what Factor needs of a record.
type Standing struct {
	Priority   int
	Confidence float64 // 0..1
	Suspect    bool
}

// Factor is what w multiplies the score of a record of standing st by.
func (w Weights) Factor(st Standing) float64 {
	x := 1.0
	if w.Priority != 0 {
		x *= math.Max(w.MinFactor, 1+w.Priority*float64(st.Priority))
	}
	if w.Confidence != 0 {
		c := math.Min(math.Max(st.Confidence, 0), 1)
		x *= 1 - w.Confidence + w.Confidence*c
	}
	if st.Suspect && w.Suspect != 0 {
		x *= w.Suspect
	}
	return x
}

func sortFused(fs []Fused) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		ra, rb := rankOr(a.BM25Rank), rankOr(b.BM25Rank)
		if ra != rb {
			return ra < rb
		}
		return a.ID < b.ID
	})
}

func rankOr(r *int) int {
	if r == nil {
		return math.MaxInt
	}
	return *r
}
