package form

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

func TestRecordFormValues(t *testing.T) {
	base := &review.Record{ID: "mem_1", Lemma: "old", Category: review.Fact, Confidence: 0.5,
		Scope: review.Scope{Tags: []string{"x"}}, Steps: []string{"s"},
		Checks: []review.Check{{Env: "shop", Input: "SELECT 1", Expect: probe.Result{Text: "1"}}}}
	if got := RecordValues(base, EditLabels); !slices.Equal(got, []string{"old", "", "x", "fact", "0.5", "s", "shop: SELECT 1"}) {
		t.Errorf("RecordValues = %q", got)
	}
	r, err := applyValues(base, EditLabels, []string{" new ", "when", "a, b ,", "warning", "0.75", "two\n\n one ", "shop: SELECT 2\nshop:SELECT 1"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Lemma != "new" || r.Trigger != "when" || !slices.Equal(r.Scope.Tags, []string{"a", "b"}) ||
		r.Category != review.Warning || r.Confidence != 0.75 || r.ID != "mem_1" || !slices.Equal(r.Steps, []string{"two", "one"}) {
		t.Errorf("applyValues = %+v", r)
	}
	// The unchanged check keeps its expected output (moved to second); the
	// new one has none.
	if want := []review.Check{{Env: "shop", Input: "SELECT 2"}, {Env: "shop", Input: "SELECT 1", Expect: probe.Result{Text: "1"}}}; !reflect.DeepEqual(r.Checks, want) {
		t.Errorf("checks %+v, want %+v", r.Checks, want)
	}
	if base.Lemma != "old" || !slices.Equal(base.Scope.Tags, []string{"x"}) {
		t.Errorf("applyValues changed the base: %+v", base)
	}
	for _, bad := range []struct{ label, value, says string }{
		{"lemma", " ", "the lemma is empty"},
		{"lemma", strings.Repeat("é", review.MaxTextBytes), "over the 65536 a text field may hold"},
		{"steps", "ok\n" + strings.Repeat("x", review.MaxTextBytes+1), "step 2: 65537 bytes, over the 65536"},
		{"category", "nope", `category "nope" is not one of`},
		{"confidence", "2", `confidence "2" is not a number from 0 to 1`},
		{"checks", "shop SELECT 1", "check 1: write it as env: input"},
		{"checks", "shop: SELECT 1\nmy shop: ls", `check 2: environment "my shop": the id`},
		{"checks", "shop:", "check 1: the input is empty"},
	} {
		_, err := applyValues(base, []string{bad.label}, []string{bad.value}, nil, nil)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Label != bad.label || !strings.Contains(err.Error(), bad.says) {
			t.Errorf("%s=%.30q: error %v, want one on %s that says %q", bad.label, bad.value, err, bad.label, bad.says)
		}
	}
}
