package review

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/memreview/memreview/probe"
)

func TestFoldSourcesKeepsTheProposalsOwnFields(t *testing.T) {
	rec := Record{Lemma: "Revenue per head is revenue over mean FTE.", Category: Procedure, Scope: Scope{Env: "docs", Tags: []string{"revenue"}},
		Trigger: "Revenue per head.", Steps: []string{"Look up the code", "Divide"}, Confidence: 0.95, Priority: 1,
		Checks: []Check{{Env: "docs", Input: "read a.md", Expect: probe.Result{Text: "a"}}}}
	src := Record{ID: "mem_1", Lemma: "Revenue per head is revenue over mean FTE. Codes are LDS, MAN.", Trigger: "per head at a site",
		Steps: []string{"look up the  code", "Take revenue"}, Confidence: 0.99, Priority: 5, Scope: Scope{Tags: []string{"revenue", "codes"}},
		Checks: []Check{{Env: "docs", Input: "grep LDS sites.md", Expect: probe.Result{Text: "LDS"}}}}
	got := FoldSources(rec, src)
	want := Record{Lemma: "Revenue per head is revenue over mean FTE. Codes are LDS, MAN.", Category: Procedure,
		Scope: Scope{Env: "docs", Tags: []string{"revenue", "codes"}}, Trigger: "Revenue per head.",
		Steps: []string{"Look up the code", "Divide", "Take revenue"}, Confidence: 0.95, Priority: 1, Status: Active,
		Provenance: Provenance{MergedFrom: []string{"mem_1"}},
		Checks:     []Check{rec.Checks[0], src.Checks[0]}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FoldSources:\n got %+v\nwant %+v", got, want)
	}
	lacks := Lacks(rec, src)
	wantLacks := []Lack{{Source: "mem_1", Sentences: []string{"Codes are LDS, MAN."}, Steps: []string{"Take revenue"}, Checks: []Check{src.Checks[0]}}}
	if !reflect.DeepEqual(lacks, wantLacks) || lacks[0].String() != "mem_1: 1 sentence, 1 step, 1 check" {
		t.Errorf("Lacks = %+v (%s)", lacks, lacks[0])
	}
	if l := Lacks(got, src); len(l) != 0 {
		t.Errorf("the folded record still lacks %+v", l)
	}
	p := &Proposal{Op: OpMerge, Record: &rec}
	if a := AcceptedRecord(p, []*Record{&src, nil}); !reflect.DeepEqual(*a, want) {
		t.Errorf("AcceptedRecord of a merge = %+v", *a)
	}
	p.Op = OpUpdate
	if a := AcceptedRecord(p, []*Record{&src}); !reflect.DeepEqual(*a, rec) {
		t.Errorf("AcceptedRecord of an update = %+v, want its record", *a)
	}
}

func TestCheckWithoutBaselineHasNoExpectInJSON(t *testing.T) {
	b, err := json.Marshal(Check{Env: "shop", Input: "SELECT 1"})
	if err != nil || string(b) != `{"env":"shop","input":"SELECT 1"}` {
		t.Errorf("a check without a baseline as JSON: %s (%v)", b, err)
	}
	if (Check{}).HasBaseline() || !(Check{Expect: probe.Result{Text: "x"}}).HasBaseline() {
		t.Error("HasBaseline")
	}
}
