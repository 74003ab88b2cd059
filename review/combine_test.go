package review

import (
	"reflect"
	"testing"

	"github.com/memreview/memreview/probe"
)

func TestCombineKeepsEverySourcesContent(t *testing.T) {
	base := Record{ID: "mem_new", Lemma: "Stars are 1 to 5 in fdbk_g1", Category: Fact,
		Scope: Scope{Env: "shop", Tags: []string{"feedback"}}, Trigger: "rating questions",
		Steps: []string{"SELECT MAX(stars) FROM fdbk_g1"}, Confidence: 0.6, Priority: 1,
		Provenance: Provenance{Trajectory: "traj_01", ProbeRuns: []string{"run_1"}},
		Checks:     []Check{{Env: "shop", Input: "SELECT 1", Expect: probe.Result{Columns: []string{"1"}}}}}
	src := Record{ID: "mem_0006", Lemma: "stars are 1 to 5 in fdbk_g1.  fdbk_g3 has columns id, stars, note. Its stars run 1 to 10.",
		Category: Warning, Scope: Scope{Env: "other", Tags: []string{"feedback", "g3"}}, Trigger: "Rating questions",
		Steps: []string{"select max(stars)   from fdbk_g1", "PRAGMA table_info(fdbk_g3)"}, Confidence: 0.9, Priority: 0,
		Provenance: Provenance{ProbeRuns: []string{"run_1", "run_2"}},
		Checks:     []Check{{Env: "shop", Input: "SELECT 1"}, {Env: "shop", Input: "SELECT 2"}}, Status: Retired, Version: 4}
	other := Record{ID: "mem_0007", Lemma: "Feedback ids are never reused!", Trigger: "deleting feedback", Confidence: 0.1, Priority: 3}

	before := base.Clone()
	got := Combine(base, src, other, src)
	want := Record{
		Lemma:    "Stars are 1 to 5 in fdbk_g1. fdbk_g3 has columns id, stars, note. Its stars run 1 to 10. Feedback ids are never reused!",
		Category: Fact, Scope: Scope{Env: "shop", Tags: []string{"feedback", "g3"}},
		Trigger:    "rating questions Or: deleting feedback",
		Steps:      []string{"SELECT MAX(stars) FROM fdbk_g1", "PRAGMA table_info(fdbk_g3)"},
		Confidence: 0.9, Priority: 3, Status: Active,
		Provenance: Provenance{Trajectory: "traj_01", ProbeRuns: []string{"run_1", "run_2"}, MergedFrom: []string{"mem_0006", "mem_0007"}},
		Checks: []Check{{Env: "shop", Input: "SELECT 1", Expect: probe.Result{Columns: []string{"1"}}},
			{Env: "shop", Input: "SELECT 2"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Combine:\n got %+v\nwant %+v", got, want)
	}
	if !reflect.DeepEqual(base, before) {
		t.Errorf("Combine changed its base: %+v", base)
	}
	got.Steps[0], got.Scope.Tags[0] = "x", "x"
	if base.Steps[0] == "x" || base.Scope.Tags[0] == "x" {
		t.Error("the combined record shares slices with its base")
	}
}

func TestCombineLemmaSentences(t *testing.T) {
	for _, c := range []struct {
		name   string
		lemmas []string
		want   string
	}{
		{"a lemma alone is kept as written", []string{"  Use  LIMIT 10 "}, "Use  LIMIT 10"},
		{"the same lemma twice", []string{"Use LIMIT.", "use limit"}, "Use LIMIT."},
		{"a second lemma without a stop", []string{"A is 1", "B is 2"}, "A is 1. B is 2"},
		{"a repeated sentence inside", []string{"A is 1. B is 2.", "B is 2. C is 3?"}, "A is 1. B is 2. C is 3?"},
		{"decimals are not sentence ends", []string{"Prices are in cents (x0.01).", "Ratio 2.5 holds"}, "Prices are in cents (x0.01). Ratio 2.5 holds"},
		{"empty lemmas add nothing", []string{"", "A.", " "}, "A."},
	} {
		var recs []Record
		for _, l := range c.lemmas {
			recs = append(recs, Record{Lemma: l})
		}
		if got := Combine(recs[0], recs[1:]...).Lemma; got != c.want {
			t.Errorf("%s: Combine lemma %q, want %q", c.name, got, c.want)
		}
	}
}

func TestKeepsLemma(t *testing.T) {
	for _, c := range []struct {
		merged, lemma string
		want          bool
	}{
		{"A is 1. B is 2.", "b IS 2", true},
		{"A is 1. B is 2.", "A is 1. C is 3.", false},
		{"A is 1", "", true},
		{"A is 1 and B is 2.", "A is 1", false},
	} {
		if got := KeepsLemma(c.merged, c.lemma); got != c.want {
			t.Errorf("KeepsLemma(%q, %q) = %v, want %v", c.merged, c.lemma, got, c.want)
		}
	}
}
