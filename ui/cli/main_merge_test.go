package cli

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
)

// showRecord reads a record as `show --json` prints it.
func showRecord(t *testing.T, bank, id string) review.Record {
	t.Helper()
	var v struct{ Record review.Record }
	if err := json.Unmarshal([]byte(must(t, mr(t, "", "--bank", bank, "show", "--json", id)).stdout), &v); err != nil {
		t.Fatal(err)
	}
	return v.Record
}

// merge without --lemma keeps every source's content: the lemma of the
// record that lists attrs_g2's columns, the procedure's steps, every tag
// and every check reach the merged record next to the proposal's own.
func TestMergeKeepsEverySourcesContent(t *testing.T) {
	t.Parallel()
	bank := filepath.Join(t.TempDir(), "world")
	sampleWorld(t, bank)
	var p struct{ Proposal review.Proposal }
	if err := json.Unmarshal([]byte(must(t, mr(t, "", "--bank", bank, "show", "--json", sample.PropAcceptCreate)).stdout), &p); err != nil {
		t.Fatal(err)
	}
	cand := p.Proposal.Record
	cols, proc := showRecord(t, bank, sample.RecAttrsG2), showRecord(t, bank, sample.RecWarrantyProc)
	if !strings.Contains(cols.Lemma, "color, weight_g, warranty_months, connectivity") || len(proc.Steps) == 0 {
		t.Fatalf("the sample changed: %s %q, %s steps %q", cols.ID, cols.Lemma, proc.ID, proc.Steps)
	}

	out := must(t, mr(t, "", "--bank", bank, "merge", "--json", "--with", cols.ID+","+proc.ID, sample.PropAcceptCreate)).stdout
	var d review.Decision
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	got := showRecord(t, bank, d.Record.ID)

	if want := cand.Lemma + " " + cols.Lemma + " " + proc.Lemma; got.Lemma != want {
		t.Errorf("merged lemma %q, want %q", got.Lemma, want)
	}
	if want := cand.Trigger + " Or: " + cols.Trigger + " Or: " + proc.Trigger; got.Trigger != want {
		t.Errorf("merged trigger %q, want %q", got.Trigger, want)
	}
	if !slices.Equal(got.Steps, proc.Steps) {
		t.Errorf("merged steps %q, want %q", got.Steps, proc.Steps)
	}
	if want := []string{"g2", "attributes", "join", "price", "warranty"}; !slices.Equal(got.Scope.Tags, want) {
		t.Errorf("merged tags %q, want %q", got.Scope.Tags, want)
	}
	wantChecks := slices.Concat(cand.Checks, cols.Checks, proc.Checks)
	if len(wantChecks) != 3 || !reflect.DeepEqual(got.Checks, wantChecks) {
		t.Errorf("merged checks %+v,\nwant %+v", got.Checks, wantChecks)
	}
	if want := []string{cols.ID, proc.ID}; !slices.Equal(got.Provenance.MergedFrom, want) {
		t.Errorf("merged_from %q, want %q", got.Provenance.MergedFrom, want)
	}
	if got.Status != review.Active || got.Category != cand.Category || got.Confidence != max(cand.Confidence, cols.Confidence, proc.Confidence) {
		t.Errorf("merged record %+v", got)
	}
	for _, id := range []string{cols.ID, proc.ID} {
		if r := showRecord(t, bank, id); r.Status != review.Retired || r.Provenance.MergedInto != got.ID {
			t.Errorf("source %s after the merge: %s, merged into %q", id, r.Status, r.Provenance.MergedInto)
		}
	}
}

// decide accept of the curator's merge proposal (sample prop_0013) keeps
// what the proposal's rewrite drops of the records it merges: mem_0018's
// sentence on the site codes, mem_0017's steps, both checks with the
// output they expect (issue 23 item 1).
func TestDecideAcceptMergeProposalKeepsSources(t *testing.T) {
	t.Parallel()
	bank := filepath.Join(t.TempDir(), "world")
	sampleWorld(t, bank)
	a, b := showRecord(t, bank, sample.RecRevenueHeadA), showRecord(t, bank, sample.RecRevenueHeadB)
	out := must(t, mr(t, "", "--bank", bank, "decide", "--json", sample.PropMerge, "accept")).stdout
	var d review.Decision
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	got := showRecord(t, bank, d.Record.ID)
	if !strings.Contains(got.Lemma, a.Lemma) || !strings.Contains(got.Lemma, b.Lemma) {
		t.Errorf("merged lemma %q lacks a source's", got.Lemma)
	}
	for _, st := range a.Steps {
		if !slices.Contains(got.Steps, st) && !slices.ContainsFunc(got.Steps, func(s string) bool { return strings.EqualFold(s, st) }) {
			t.Errorf("merged steps %q lack %s's %q", got.Steps, a.ID, st)
		}
	}
	for _, c := range slices.Concat(a.Checks, b.Checks) {
		if !slices.ContainsFunc(got.Checks, func(g review.Check) bool { return reflect.DeepEqual(g, c) }) {
			t.Errorf("merged checks %+v lack %+v with its expected output", got.Checks, c)
		}
	}
}

// show lists a record's checks with what each expects, and a merged
// record's history and show name where its content went, through each
// later merge (issue 23 item 3).
func TestShowChecksAndWhereAMergeWent(t *testing.T) {
	t.Parallel()
	bank := filepath.Join(t.TempDir(), "world")
	sampleWorld(t, bank)
	dec := func(args ...string) string {
		var d review.Decision
		if err := json.Unmarshal([]byte(must(t, mr(t, "", append([]string{"--bank", bank}, args...)...)).stdout), &d); err != nil {
			t.Fatal(err)
		}
		return d.Record.ID
	}
	first := dec("decide", "--json", sample.PropMerge, "accept")
	second := dec("merge", "--json", "--with", first, sample.PropQuarterCreate)

	out := must(t, mr(t, "", "--bank", bank, "show", sample.RecRevenueHeadA)).stdout
	for _, want := range []string{"check 1      docs: grep LDS sites.md\n", "  expects    sites.md:", "  verify     not verified yet",
		"merged into  " + first + " → " + second + " (now: " + second + ")"} {
		if !strings.Contains(out, want) {
			t.Errorf("show %s lacks %q:\n%s", sample.RecRevenueHeadA, want, out)
		}
	}
	out = must(t, mr(t, "", "--bank", bank, "show", second)).stdout
	if !strings.Contains(out, "check 3      docs: grep LDS sites.md\n") || strings.Contains(out, "merged into  ") {
		t.Errorf("show %s:\n%s", second, out)
	}
	for _, id := range []string{sample.RecRevenueHeadA, sample.RecRevenueHeadB} {
		h := strings.Split(strings.TrimSpace(must(t, mr(t, "", "--bank", bank, "history", id)).stdout), "\n")
		if want := "merged into " + first + ", then into " + second + " (" + second + " holds its content now"; !strings.HasPrefix(h[len(h)-1], want) {
			t.Errorf("history %s ends %q, want %q", id, h[len(h)-1], want)
		}
	}
	h := strings.Split(strings.TrimSpace(must(t, mr(t, "", "--bank", bank, "history", first)).stdout), "\n")
	if !strings.HasPrefix(h[len(h)-1], "merged into "+second+" (") {
		t.Errorf("history %s ends %q", first, h[len(h)-1])
	}
}
