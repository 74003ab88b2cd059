package form_test

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/form"
	"github.com/memreview/memreview/ui/uitest"
)

// TestTextFieldGrowsThenScrolls: a multi-line field wraps its text and
// grows with it to its cap, then scrolls to the cursor; blurred, it shows
// its first rows, the last cut with "…".
func TestTextFieldGrowsThenScrolls(t *testing.T) {
	f := form.NewTextField("", true, 0)
	f.SetSize(20, 4)
	f.Focus()
	if f.Rows() != 1 {
		t.Fatalf("empty field: %d rows", f.Rows())
	}
	f.Update(uitest.Key("alpha beta gamma delta epsilon"), "lemma")
	if f.Rows() != 2 || strings.Count(f.View(), "\n") != 1 {
		t.Fatalf("30 characters at 20 wide: %d rows, view %q", f.Rows(), f.View())
	}
	for range 6 {
		f.Update(tea.KeyMsg{Type: tea.KeyEnter}, "lemma")
		f.Update(uitest.Key("line"), "lemma")
	}
	if f.Rows() != 4 || f.WantRows() != 8 {
		t.Fatalf("8 rows of text, cap 4: draws %d, wants %d", f.Rows(), f.WantRows())
	}
	if v := ansi.Strip(f.View()); strings.Contains(v, "alpha") || !strings.HasPrefix(strings.Split(v, "\n")[3], "line") {
		t.Errorf("focused at the end, the field does not scroll to the cursor:\n%s", v)
	}
	f.Blur()
	v := ansi.Strip(f.View())
	if lines := strings.Split(v, "\n"); len(lines) != 4 || !strings.HasPrefix(lines[0], "alpha beta") || !strings.HasSuffix(lines[3], "…") {
		t.Errorf("blurred, the field does not show its start:\n%s", v)
	}
}

// TestTextFieldPrintable: a paste holding escapes and control characters
// is shown and kept as visible text; a one-line field turns its line
// breaks into spaces.
func TestTextFieldPrintable(t *testing.T) {
	paste := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("red \x1b[31mX\x1b[0m\tend\r\nnext \u202eevil"), Paste: true}
	multi := form.NewTextField("", true, 0)
	multi.SetSize(80, 5)
	multi.Focus()
	multi.Update(paste, "lemma")
	if got, want := multi.Value(), `red \x1b[31mX\x1b[0m    end`+"\n"+`next \u202eevil`; got != want {
		t.Errorf("multi-line field holds %q, want %q", got, want)
	}
	one := form.NewTextField("", false, 0)
	one.SetSize(80, 3)
	one.Focus()
	one.Update(paste, "trigger")
	if v := one.Value(); strings.Contains(v, "\n") || strings.ContainsAny(v, "\x1b\u202e") {
		t.Errorf("one-line field holds %q", v)
	}
	for _, v := range []string{multi.View(), one.View()} {
		if strings.Contains(v, "\x1b[31mX") || strings.Contains(v, "\u202e") {
			t.Errorf("the view holds raw escapes: %q", v)
		}
	}
}

// TestFormMultiLineKeys: enter breaks the line in a multi-line field and
// applies from a one-line one; ctrl+s applies from any; ↓ on the last row
// of a multi-line field moves to the next field, ↓ above it moves a line.
func TestFormMultiLineKeys(t *testing.T) {
	k := common.DefaultKeyMap()
	base := review.Record{Lemma: "first", Category: review.Fact, Confidence: 0.5, Steps: []string{"a", "b"}}
	f := form.NewRecordForm(&base, []string{"lemma", "steps", "trigger"}, nil)
	f.SetSize(60, 30)
	if res, _ := f.Update(k, uitest.Key("enter")); res != form.FormEditing {
		t.Fatal("enter in the lemma applied")
	}
	f.Update(k, uitest.Key("second"))
	if f.Values()[0] != "first\nsecond" {
		t.Fatalf("lemma %q", f.Values()[0])
	}
	f.Update(k, uitest.Key("down"))
	if f.Focused() != 1 {
		t.Fatalf("↓ on the lemma's last row: focus %d", f.Focused())
	}
	f.Update(k, uitest.Key("up"))
	if f.Focused() != 1 {
		t.Fatalf("↑ on the second step moved off the field: focus %d", f.Focused())
	}
	f.Update(k, uitest.Key("tab"))
	if res, _ := f.Update(k, uitest.Key("enter")); res != form.FormApply || f.Focused() != 2 {
		t.Fatalf("enter in the one-line trigger: %v, focus %d", res, f.Focused())
	}
	f.FocusField(1)
	if res, _ := f.Update(k, uitest.Key("ctrl+s")); res != form.FormApply {
		t.Fatal("ctrl+s in the steps did not apply")
	}
	r, err := f.Record()
	if err != nil || r.Lemma != "first\nsecond" || len(r.Steps) != 2 {
		t.Fatalf("record %+v, %v", r, err)
	}
}

// TestRecordFormValidates: an empty lemma and an unknown environment show
// under their fields as they are typed, and applying is refused.
func TestRecordFormValidates(t *testing.T) {
	k := common.DefaultKeyMap()
	base := review.Record{Lemma: "x", Category: review.Fact, Confidence: 0.5,
		Checks: []review.Check{{Env: "shop", Input: "SELECT 1", Expect: probe.Result{Text: "1"}}}}
	f := form.NewRecordForm(&base, []string{"lemma", "checks"}, []string{"shop", "finance"})
	f.SetSize(70, 30)
	f.Update(k, uitest.Key("backspace"))
	if got := f.FieldErrs()["lemma"]; got != "the lemma is empty" {
		t.Errorf("empty lemma: field error %q", got)
	}
	f.FocusField(1)
	f.Update(k, uitest.Key("enter"))
	f.Update(k, uitest.Key("shpo: SELECT 2"))
	if got := f.FieldErrs()["checks"]; !strings.Contains(got, `check 2: no environment "shpo" (declared: shop, finance`) {
		t.Errorf("unknown env: field error %q", got)
	}
	v := ansi.Strip(f.View(common.DefaultStyles()))
	if !strings.Contains(v, "! the lemma is empty") || !strings.Contains(v, `! check 2: no environment "shpo"`) {
		t.Errorf("the errors are not shown by their fields:\n%s", v)
	}
	if r, closed, _ := f.Key(k, uitest.Key("ctrl+s"), ""); r != nil || closed || !strings.Contains(f.Err(), "not saved: lemma: the lemma is empty") {
		t.Fatalf("save with invalid fields: record %v, closed %v, error %q", r, closed, f.Err())
	}
	// A check the record already has passes even when its environment is
	// no longer declared; a new one naming it does not.
	old := form.NewRecordForm(&base, []string{"checks"}, []string{"finance"})
	if e := old.FieldErrs()["checks"]; e != "" {
		t.Errorf("the record's own check on an undeclared env is refused: %q", e)
	}
	old.Update(k, uitest.Key("enter"))
	old.Update(k, uitest.Key("shop: SELECT 3"))
	if e := old.FieldErrs()["checks"]; !strings.Contains(e, `check 2: no environment "shop"`) {
		t.Errorf("a new check on an undeclared env: error %q", e)
	}
}

// TestRecordFormChecks: the checks field says which checks keep their
// expected output; an edited input loses it, and ctrl+x drops or keeps
// it for the check under the cursor.
func TestRecordFormChecks(t *testing.T) {
	k := common.DefaultKeyMap()
	exp := probe.Result{Text: "5"}
	base := review.Record{Lemma: "x", Category: review.Fact, Confidence: 0.5,
		Checks: []review.Check{{Env: "shop", Input: "SELECT 1", Expect: exp}, {Env: "shop", Input: "SELECT 2", Expect: exp}}}
	f := form.NewRecordForm(&base, []string{"checks"}, nil)
	f.SetSize(80, 30)
	if n := f.Note(0); n != "checks 1, 2 keep their expected output" {
		t.Errorf("note before editing: %q", n)
	}
	f.Update(k, uitest.Key("0")) // the second check now reads SELECT 20
	if n := f.Note(0); !strings.Contains(n, "check 1 keeps its expected output") || !strings.Contains(n, "check 2: new or edited input: saving runs it live") {
		t.Errorf("note after editing check 2: %q", n)
	}
	f.Update(k, uitest.Key("up"))
	f.Key(k, uitest.Key("ctrl+x"), "")
	if n := f.Note(0); !strings.Contains(n, "check 1: expected output dropped: saving runs it live for a new one (ctrl+x keeps the old)") {
		t.Errorf("note after ctrl+x on check 1: %q", n)
	}
	r, err := f.Record()
	if err != nil || len(r.Checks) != 2 || r.Checks[0].Expect.Text != "" || r.Checks[1].Input != "SELECT 20" || r.Checks[1].Expect.Text != "" {
		t.Fatalf("record checks %+v, %v", r, err)
	}
	f.Key(k, uitest.Key("ctrl+x"), "")
	if r, _ := f.Record(); r.Checks[0].Expect.Text != "5" {
		t.Errorf("ctrl+x again did not keep check 1's expected output: %+v", r.Checks[0])
	}
}

// TestFormMoveLine: alt+↑ and alt+↓ reorder the lines of a multi-line
// field, the cursor moving with its line, and stop at the ends.
func TestFormMoveLine(t *testing.T) {
	k := common.DefaultKeyMap()
	base := review.Record{Lemma: "x", Category: review.Fact, Confidence: 0.5, Steps: []string{"one", "two", "three"}}
	f := form.NewRecordForm(&base, []string{"steps"}, nil)
	f.SetSize(60, 20)
	altUp, altDown := tea.KeyMsg{Type: tea.KeyUp, Alt: true}, tea.KeyMsg{Type: tea.KeyDown, Alt: true}
	for _, s := range []struct {
		key  tea.KeyMsg
		want string
	}{
		{altUp, "one\nthree\ntwo"},
		{altUp, "three\none\ntwo"},
		{altUp, "three\none\ntwo"}, // at the top
		{altDown, "one\nthree\ntwo"},
	} {
		f.Update(k, s.key)
		if got := f.Values()[0]; got != s.want {
			t.Fatalf("%s: steps %q, want %q", s.key, got, s.want)
		}
	}
	if r, _ := f.Record(); strings.Join(r.Steps, ",") != "one,three,two" {
		t.Errorf("record steps %q", r.Steps)
	}
}
