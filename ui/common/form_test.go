package common_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// TestFormKeys moves between fields, types into the focused one, and reads
// enter and esc as apply and cancel; typing clears the error.
func TestFormKeys(t *testing.T) {
	k := common.DefaultKeyMap()
	f := common.NewForm([]string{"lemma", "tags"}, []string{"old", "a"})
	steps := []struct {
		key   string
		want  common.FormResult
		focus int
	}{
		{"tab", common.FormEditing, 1},
		{"tab", common.FormEditing, 0}, // wraps around
		{"shift+tab", common.FormEditing, 1},
		{",b", common.FormEditing, 1},
		{"shift+tab", common.FormEditing, 0},
		{"backspace", common.FormEditing, 0},
		{"enter", common.FormApply, 0},
		{"esc", common.FormCancel, 0},
	}
	for _, s := range steps {
		if got, _ := f.Update(k, uitest.Key(s.key)); got != s.want || f.Focused() != s.focus {
			t.Fatalf("%s: result %d, focus %d; want %d, %d", s.key, got, f.Focused(), s.want, s.focus)
		}
	}
	if got, want := f.Values(), []string{"ol", "a,b"}; !slices.Equal(got, want) {
		t.Errorf("values %q, want %q", got, want)
	}
	f.SetErr("the lemma is empty")
	f.Update(k, uitest.Key("x"))
	if f.Err() != "" {
		t.Errorf("typing left the error %q", f.Err())
	}
}

// TestFormView draws every field, the focus mark and the error, no line
// wider than the form (or than the label column and one cell, when the
// form is narrower than that).
func TestFormView(t *testing.T) {
	st := common.DefaultStyles()
	f := common.NewForm([]string{"lemma", "confidence"}, []string{strings.Repeat("long lemma ", 20), "0.5"})
	f.SetErr("confidence \"2\" is not a number from 0 to 1")
	for _, w := range []int{10, 40, 120} {
		f.SetWidth(w)
		v := ansi.Strip(f.View(st))
		lines := strings.Split(v, "\n")
		if len(lines) < 4 || !strings.HasPrefix(lines[0], "▸ lemma      ") || !strings.HasPrefix(lines[1], "  confidence ") ||
			w >= 40 && !strings.HasPrefix(lines[1], "  confidence 0.5") {
			t.Errorf("width %d: fields not drawn as label column and value:\n%s", w, v)
		}
		if !strings.Contains(strings.Join(strings.Fields(v), " "), "is not a number from 0 to 1") {
			t.Errorf("width %d: no error line:\n%s", w, v)
		}
		for _, l := range lines {
			if lw := ansi.StringWidth(l); lw > max(w, 16) {
				t.Errorf("width %d: line %q is %d wide", w, l, lw)
			}
		}
	}
}

func TestApplyValues(t *testing.T) {
	base := &review.Record{ID: "mem_1", Lemma: "old", Category: review.Fact, Confidence: 0.5,
		Scope: review.Scope{Tags: []string{"x"}}, Steps: []string{"s"}}
	if got := common.RecordValues(base, common.EditLabels); !slices.Equal(got, []string{"old", "", "x", "fact", "0.5"}) {
		t.Errorf("RecordValues = %q", got)
	}
	r, err := common.ApplyValues(base, common.EditLabels, []string{" new ", "when", "a, b ,", "warning", "0.75"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Lemma != "new" || r.Trigger != "when" || !slices.Equal(r.Scope.Tags, []string{"a", "b"}) ||
		r.Category != review.Warning || r.Confidence != 0.75 || r.ID != "mem_1" {
		t.Errorf("ApplyValues = %+v", r)
	}
	if base.Lemma != "old" || !slices.Equal(base.Scope.Tags, []string{"x"}) {
		t.Errorf("ApplyValues changed the base: %+v", base)
	}
	for _, bad := range []struct{ label, value, says string }{
		{"lemma", " ", "the lemma is empty"},
		{"category", "nope", `category "nope" is not one of`},
		{"confidence", "2", `confidence "2" is not a number from 0 to 1`},
	} {
		_, err := common.ApplyValues(base, []string{bad.label}, []string{bad.value})
		if err == nil || !strings.Contains(err.Error(), bad.says) {
			t.Errorf("%s=%q: error %v, want one that says %q", bad.label, bad.value, err, bad.says)
		}
	}
}

// TestFormLongValueShowsItsStart: a field whose value is wider than its
// input shows its beginning while another field has the focus, not the
// tail the cursor (left at the end) would scroll to.
func TestFormLongValueShowsItsStart(t *testing.T) {
	lemma := "Money in the finance workbooks is GBP: revenue_by_site.csv in whole pounds, pnl_fy2024.md in thousands."
	f := common.NewForm([]string{"tags", "lemma"}, []string{"units", lemma})
	f.SetWidth(60)
	lines := strings.Split(ansi.Strip(f.View(common.NewCommon().Styles)), "\n")
	if len(lines) < 2 || !strings.Contains(lines[1], "Money in the finance") {
		t.Fatalf("the unfocused lemma does not show its start:\n%s", strings.Join(lines, "\n"))
	}
	for _, l := range lines {
		if ansi.StringWidth(l) > 60 {
			t.Errorf("line wider than the form: %q", l)
		}
	}
}

// TestRecordKey: enter on valid values gives the changed record, but not
// while something is in flight; invalid values stay on the form; esc closes.
func TestRecordKey(t *testing.T) {
	k := common.DefaultKeyMap()
	base := review.Record{ID: "mem_1", Lemma: "old lemma", Category: review.Fact, Confidence: 0.5}
	f := common.NewForm([]string{"lemma", "confidence"}, []string{"new lemma", "0.9"})
	if r, closed, _ := f.RecordKey(k, uitest.Key("enter"), &base, "committing dec_1"); r != nil || closed || !strings.Contains(f.Err(), "committing dec_1") {
		t.Fatalf("busy: record %v, closed %v, error %q", r, closed, f.Err())
	}
	r, closed, _ := f.RecordKey(k, uitest.Key("enter"), &base, "")
	if r == nil || closed || r.Lemma != "new lemma" || r.Confidence != 0.9 || base.Lemma != "old lemma" {
		t.Fatalf("apply: record %+v, closed %v; base %+v", r, closed, base)
	}
	bad := common.NewForm([]string{"confidence"}, []string{"1.5"})
	if r, closed, _ := bad.RecordKey(k, uitest.Key("enter"), &base, ""); r != nil || closed || bad.Err() == "" {
		t.Fatalf("invalid confidence: record %v, closed %v, error %q", r, closed, bad.Err())
	}
	if r, closed, _ := bad.RecordKey(k, uitest.Key("esc"), &base, ""); r != nil || !closed {
		t.Fatalf("esc: record %v, closed %v", r, closed)
	}
}

// The TUI's probe tables show each value exactly as the CLI's do (one cell
// formatter, probe.CellText): numbers in the same form, NULL for nil. (Text
// differs only in line breaks: the screen shows a cell on one line.)
func TestCellTextMatchesTheCLI(t *testing.T) {
	for _, v := range []any{nil, int64(42), 0.5, 1e21, 3.0, -0.25, true, "plain"} {
		cli := probe.CellText(v)
		if got := common.CellText(v); got != cli {
			t.Errorf("CellText(%#v) = %q in the TUI, %q in the CLI", v, got, cli)
		}
	}
	if got := common.CellText(1e21); got != "1e+21" {
		t.Errorf("CellText(1e21) = %q, want 1e+21 as the CLI prints it", got)
	}
}
