package form_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/form"
	"github.com/memreview/memreview/ui/uitest"
)

// TestFormKeys moves between fields, types into the focused one, and reads
// enter and esc as apply and cancel; typing clears the error.
func TestFormKeys(t *testing.T) {
	k := common.DefaultKeyMap()
	f := form.NewForm([]string{"lemma", "tags"}, []string{"old", "a"})
	steps := []struct {
		key   string
		want  form.FormResult
		focus int
	}{
		{"tab", form.FormEditing, 1},
		{"tab", form.FormEditing, 0}, // wraps around
		{"shift+tab", form.FormEditing, 1},
		{",b", form.FormEditing, 1},
		{"shift+tab", form.FormEditing, 0},
		{"backspace", form.FormEditing, 0},
		{"enter", form.FormApply, 0},
		{"esc", form.FormCancel, 0},
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
// wider than the form (or than the label column and two cells, when the
// form is narrower than that); a long value wraps under its label.
func TestFormView(t *testing.T) {
	st := common.DefaultStyles()
	f := form.NewForm([]string{"lemma", "confidence"}, []string{strings.Repeat("long lemma ", 20), "0.5"})
	f.SetErr("confidence \"2\" is not a number from 0 to 1")
	for _, w := range []int{10, 40, 120} {
		f.SetWidth(w)
		v := ansi.Strip(f.View(st))
		lines := strings.Split(v, "\n")
		conf := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "  confidence ") })
		if len(lines) < 4 || !strings.HasPrefix(lines[0], "▸ lemma      ") || conf < 1 ||
			w >= 40 && !strings.HasPrefix(lines[conf], "  confidence 0.5") {
			t.Errorf("width %d: fields not drawn as label column and value:\n%s", w, v)
		}
		for _, l := range lines[1:max(conf, 1)] {
			if !strings.HasPrefix(l, strings.Repeat(" ", ansi.StringWidth("▸ lemma      "))) {
				t.Errorf("width %d: the lemma's further rows are not under its text: %q", w, l)
			}
		}
		if !strings.Contains(strings.Join(strings.Fields(v), " "), "is not a number from 0 to 1") {
			t.Errorf("width %d: no error line:\n%s", w, v)
		}
		for _, l := range lines {
			if lw := ansi.StringWidth(l); lw > max(w, 15) {
				t.Errorf("width %d: line %q is %d wide", w, l, lw)
			}
		}
	}
}

// TestFormLongValueShowsItsStart: a field whose value is wider than its
// field wraps, and shows its beginning while another field has the focus.
func TestFormLongValueShowsItsStart(t *testing.T) {
	lemma := "Money in the finance workbooks is GBP: revenue_by_site.csv in whole pounds, pnl_fy2024.md in thousands."
	f := form.NewForm([]string{"tags", "lemma"}, []string{"units", lemma})
	f.SetWidth(60)
	v := ansi.Strip(f.View(common.NewCommon().Styles))
	lines := strings.Split(v, "\n")
	if len(lines) < 3 || !strings.Contains(lines[1], "Money in the finance") || !strings.Contains(strings.Join(strings.Fields(v), " "), "pnl_fy2024.md in thousands.") {
		t.Fatalf("the unfocused lemma does not show from its start to its end:\n%s", v)
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
	f := form.NewRecordForm(&base, []string{"confidence", "lemma"}, nil)
	f.FocusField(1)
	f.Update(k, uitest.Key("ctrl+u"))
	f.Update(k, uitest.Key("new lemma"))
	f.FocusField(0)
	f.Update(k, uitest.Key("ctrl+u"))
	f.Update(k, uitest.Key("0.9"))
	if r, closed, _ := f.Key(k, uitest.Key("enter"), "committing dec_1"); r != nil || closed || !strings.Contains(f.Err(), "committing dec_1") {
		t.Fatalf("busy: record %v, closed %v, error %q", r, closed, f.Err())
	}
	r, closed, _ := f.Key(k, uitest.Key("enter"), "")
	if r == nil || closed || r.Lemma != "new lemma" || r.Confidence != 0.9 || base.Lemma != "old lemma" {
		t.Fatalf("apply: record %+v, closed %v; base %+v", r, closed, base)
	}
	bad := form.NewRecordForm(&review.Record{Lemma: "x", Confidence: 1.5}, []string{"confidence"}, nil)
	if r, closed, _ := bad.Key(k, uitest.Key("enter"), ""); r != nil || closed || !strings.Contains(bad.Err(), "not saved: confidence") {
		t.Fatalf("invalid confidence: record %v, closed %v, error %q", r, closed, bad.Err())
	}
	if r, closed, _ := bad.Key(k, uitest.Key("esc"), ""); r != nil || !closed {
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
