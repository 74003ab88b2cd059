package hygiene

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
)

// chain makes n records whose lemmas are windows of one word list, each
// shifted by step words: neighbours are near-duplicates, records further
// apart are not.
func chain(n, step int) []review.Record {
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber basil cedar dahlia ember fennel garnet hazel iris jasper")
	var recs []review.Record
	for i := range n {
		recs = append(recs, review.Record{ID: fmt.Sprintf("mem_%03d", i), Version: 1, Status: review.Active, Category: review.Fact, Confidence: 0.5,
			Scope: review.Scope{Env: "shop"}, Lemma: strings.Join(words[i*step:i*step+10], " ")})
	}
	return recs
}

// Duplicates are clusters whose members are near-duplicates two by two,
// never a chain of neighbours, and at most MaxMergeMembers (issue 23 item
// 24: hygiene chained records into a 4-way merge of records that differed
// in their column names, and at scale a 284-record merge of 20 claims).
func TestDuplicateClustersAreNotChains(t *testing.T) {
	recs := chain(4, 3)
	rep, err := Run(context.Background(), Input{Records: recs, Now: time.Now()}, Options{Only: Duplicates})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		got = append(got, strings.Join(f.Records, "+"))
	}
	if want := "mem_000+mem_001 mem_002+mem_003"; strings.Join(got, " ") != want {
		t.Fatalf("clusters of a chain = %v, want %s", got, want)
	}
	// Records that all say the same cluster together, MaxMergeMembers at
	// most to a merge.
	same := chain(1, 0)
	var many []review.Record
	for i := range 2*MaxMergeMembers + 3 {
		r := same[0]
		r.ID = fmt.Sprintf("mem_s%02d", i)
		many = append(many, r)
	}
	rep, err = Run(context.Background(), Input{Records: many, Now: time.Now()}, Options{Only: Duplicates})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, f := range rep.Findings {
		if len(f.Records) > MaxMergeMembers || len(f.Records) < 2 {
			t.Fatalf("a merge of %d records", len(f.Records))
		}
		total += len(f.Records)
	}
	if len(rep.Findings) != 3 || total != len(many) {
		t.Fatalf("%d identical records gave %d merges of %d records", len(many), len(rep.Findings), total)
	}
}
