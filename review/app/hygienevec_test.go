package app_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/memreview/memreview/curator/hygiene"
	"github.com/memreview/memreview/index/embed/embedtest"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

// Hygiene pairs a planted paraphrase — the same lesson in other words,
// which word overlap misses — through the records' embeddings, and its
// rules still decide: a record near in vector space but of another
// category is not merged.
func TestHygieneFindsParaphraseByVectors(t *testing.T) {
	t.Parallel()
	srv := embedtest.New(t, embedtest.Topics(8, topics))
	recs := []review.Record{
		rec("mem_bt", "bluetooth gadgets carry a wireless flag", review.Fact),
		rec("mem_para", "connectivity of each device is recorded as an attribute", review.Fact), // the paraphrase
		rec("mem_warn", "wireless earbuds often lack a model number", review.Warning),           // near, another category
		rec("mem_cents", "a price is stored in cents", review.Fact),
		rec("mem_stars", "ratings run from one to five stars", review.Fact),
	}
	svc := vecBank(t, recs, srv, app.Options{})
	waitEmbedded(t, svc)
	rep, _, err := svc.Hygiene(context.Background(), app.HygieneOptions{Only: hygiene.Duplicates, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, f := range rep.Findings {
		found = append(found, strings.Join(f.Records, "+"))
		if slices.Equal(f.Records, []string{"mem_bt", "mem_para"}) && !strings.Contains(f.Proposal.Rationale, "paired by their embeddings") {
			t.Errorf("rationale does not say how the pair was found: %s", f.Proposal.Rationale)
		}
	}
	if !slices.Equal(found, []string{"mem_bt+mem_para"}) {
		t.Fatalf("duplicate findings %v, want the paraphrase pair only", found)
	}

	// The same bank without an endpoint's vectors near each other: the
	// offline embedder learns from five records, and word overlap alone
	// (the pair shares no content word) finds nothing.
	plain := vecBank(t, recs, nil, app.Options{})
	rep, _, err = plain.Hygiene(context.Background(), app.HygieneOptions{Only: hygiene.Duplicates, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if !strings.Contains(f.Proposal.Rationale, "paired by their embeddings") {
			t.Errorf("word overlap paired %v: %s", f.Records, f.Proposal.Rationale)
		}
	}
}
