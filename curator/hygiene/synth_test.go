package hygiene

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/sample/testenv"
)

// score is precision and recall of found pairs against truth pairs.
type score struct{ found, truth, hit int }

func (s score) precision() float64 { return float64(s.hit) / float64(max(1, s.found)) }
func (s score) recall() float64    { return float64(s.hit) / float64(max(1, s.truth)) }

func pairKey(a, b string) [2]string {
	if a > b {
		a, b = b, a
	}
	return [2]string{a, b}
}

// measure runs hygiene on n synthetic records and scores its duplicate and
// contradiction pairs against the planted truth (duplicates: plus the
// records the generator made to say the same by chance). A pair counts as
// found when both its records are named by one finding of the kind: a
// merge cluster (every two members similar), or a contradiction proposal
// — at most MaxContradictionMembers records of one subject group, each
// contradicting another of the same proposal directly (splitGroup). So a
// planted pair is credited when its two records land in one proposal,
// directly or through at most ten others; before the split a whole
// subject group was one finding and credited every pair in it (recall
// 0.683 at 10,000; the pair test alone, 0.55). The found count is every
// pair of a proposal, so contradiction precision says little: the
// templates make real contradictions the truth does not list.
func measure(t testing.TB, n int) (dup, contra score) {
	recs := sample.SynthRecords(n, 1)
	for i := range recs {
		recs[i].Version = 1
	}
	rep, err := Run(context.Background(), Input{Records: recs, Now: time.Now()}, Options{Only: ""})
	if err != nil {
		t.Fatal(err)
	}
	planted := sample.SynthPlanted(sample.SynthOptions{Records: n, Seed: 1})
	truthDup, truthContra := map[[2]string]bool{}, map[[2]string]bool{}
	for _, p := range sample.DuplicateTruth(recs, planted.Duplicates) {
		truthDup[pairKey(p[0], p[1])] = true
	}
	for _, p := range planted.Contradictions {
		truthContra[pairKey(p[0], p[1])] = true
	}
	foundDup, foundContra := map[[2]string]bool{}, map[[2]string]bool{}
	parts := 0
	for _, f := range rep.Findings {
		if f.Kind == Contradictions && len(f.Records) > MaxContradictionMembers {
			t.Errorf("a contradiction proposal of %d records (at most %d)", len(f.Records), MaxContradictionMembers)
		}
		if f.Kind == Contradictions && strings.Contains(f.Proposal.Rationale, " (Part ") {
			parts++
		}
		for i := range f.Records {
			for j := i + 1; j < len(f.Records); j++ {
				switch f.Kind {
				case Duplicates:
					foundDup[pairKey(f.Records[i], f.Records[j])] = true
				case Contradictions:
					foundContra[pairKey(f.Records[i], f.Records[j])] = true
				}
			}
		}
	}
	if parts == 0 {
		t.Errorf("no contradiction group of %d records was split", n)
	}
	dup, contra = score{found: len(foundDup), truth: len(truthDup)}, score{found: len(foundContra), truth: len(truthContra)}
	for p := range foundDup {
		if truthDup[p] {
			dup.hit++
		}
	}
	for p := range foundContra {
		if truthContra[p] {
			contra.hit++
		}
	}
	return dup, contra
}

// Precision and recall of the duplicates on synthetic records (10,000 under
// MEMREVIEW_CI=1, 2,000 otherwise) against the planted paraphrases and the
// records the generator made to say the same by chance
// (sample.DuplicateTruth). At 10,000 this asserts the targets
// (precision 0.95, recall 0.9; reached: 0.994 and 0.929); at 2,000 the slot
// terms are learned from fewer pairs and it holds the level reached there
// (0.918 and 0.944; BENCHMARKS.md, "Hygiene") so that it cannot slip.
func TestSynthRecall(t *testing.T) {
	n := 2000
	if testenv.CI() {
		n = 10000
	}
	dup, contra := measure(t, n)
	t.Logf("n=%d duplicates %+v precision %.3f recall %.3f; contradictions %+v precision %.3f recall %.3f",
		n, dup, dup.precision(), dup.recall(), contra, contra.precision(), contra.recall())
	if dup.truth < n/50 {
		t.Fatalf("only %d duplicate pairs planted in %d records", dup.truth, n)
	}
	wantP, wantR := 0.9, 0.93
	if n >= 10000 {
		wantP, wantR = 0.95, 0.9
	}
	if dup.recall() < wantR || dup.precision() < wantP {
		t.Errorf("duplicates: precision %.3f (want ≥ %.2f), recall %.3f (want ≥ %.2f)", dup.precision(), wantP, dup.recall(), wantR)
	}
	if contra.recall() < 0.5 {
		t.Errorf("contradiction recall %.3f < 0.5", contra.recall())
	}
}
