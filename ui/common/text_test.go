package common

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review"
)

func TestIndent(t *testing.T) {
	cases := []struct {
		lead, s string
		w, pad  int
		want    []string
	}{
		{"- ", "aaa bbb ccc", 7, 2, []string{"- aaa", "  bbb", "  ccc"}},
		// A lead wider than the pad must not push the first line past w.
		{"  5 assistant: ", "one two three four", 24, 4, []string{"  5 assistant: one two", "    three four"}},
		{"x", "ab", 10, 3, []string{"x  ab"}},
		// A lead that fills the line: the text goes below it, not cut into.
		{"verified against: ", "db v2 and more", 8, 2, []string{"verified against: ", "  db v2", "  and", "  more"}},
		{"  note: ", "a\nb c", 10, 8, []string{"  note: a", "        b", "        c"}},
	}
	for _, c := range cases {
		got := strings.Split(Indent(c.lead, c.s, c.w, c.pad), "\n")
		if !slices.Equal(got, c.want) {
			t.Errorf("Indent(%q, %q, %d, %d) = %q, want %q", c.lead, c.s, c.w, c.pad, got, c.want)
		}
		for _, l := range got {
			if ansi.StringWidth(l) > c.w && l != c.lead { // only a lead wider than w may be
				t.Errorf("Indent(%q, …, %d): line %q is wider", c.lead, c.w, l)
			}
		}
	}
}

func TestFitLine(t *testing.T) {
	for _, c := range []struct {
		s    string
		w    int
		want string
	}{
		{"abc", 5, "abc  "},
		{"abcdef", 4, "abc…"},
		{"日本語", 4, "日… "}, // a wide rune does not fit: pad
	} {
		if got := FitLine(c.s, c.w); got != c.want || ansi.StringWidth(got) != c.w {
			t.Errorf("FitLine(%q, %d) = %q, want %q", c.s, c.w, got, c.want)
		}
	}
}

func TestDiffFields(t *testing.T) {
	old := &review.Record{Lemma: "a", Category: review.Fact, Scope: review.Scope{Tags: []string{"x"}}, Confidence: 0.5, Status: review.Active}
	new := *old
	new.Lemma, new.Trigger = "b", "when"
	var got []string
	for _, l := range DiffFields(old, &new) {
		got = append(got, string(l.Op)+" "+l.Text)
	}
	want := []string{"- lemma: a", "+ lemma: b", "  category: fact", "  tags: x", "  confidence: 0.50", "  status: active", "+ trigger: when"}
	if !slices.Equal(got, want) {
		t.Errorf("DiffFields:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestPrintable(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain £ text\nline 2", "plain £ text\nline 2"},
		{"a\tb", "a    b"},
		{"crlf\r\nnext", "crlf\nnext"},
		{"\x1b[2Jcleared", `\x1b[2Jcleared`},
		{"\x1b]0;title\x07", `\x1b]0;title\x07`},
		{"c1 \u009b31m", `c1 \x9b31m`},
		{"view" + tagged(`send "all" rows`) + " ok", `view[tags: "send \"all\" rows"] ok`},
		{"end" + tagged("x"), `end[tags: "x"]`},
	} {
		if got := Printable(c.in); got != c.want {
			t.Errorf("Printable(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPrintableLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"one\ntwo", "one two"},
		{"crlf\r\nnext\ttab", "crlf next tab"},
		{"lemma\n\x1b[31mred", `lemma \x1b[31mred`},
	} {
		if got := PrintableLine(c.in); got != c.want {
			t.Errorf("PrintableLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestDiffFieldsPrintable: record text is shown Printable, compared as
// stored.
func TestDiffFieldsPrintable(t *testing.T) {
	old := &review.Record{Lemma: "a\tb"}
	new := &review.Record{Lemma: "a    b\n\x1b[31m"}
	var got []string
	for _, l := range DiffFields(old, new) {
		got = append(got, string(l.Op)+" "+l.Text)
	}
	want := []string{"- lemma: a    b", "+ lemma: a    b\n\\x1b[31m", "  confidence: 0.00"}
	if !slices.Equal(got, want) {
		t.Errorf("DiffFields = %q, want %q", got, want)
	}
}

func TestReadableJSON(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"sql":"SELECT a FROM t WHERE x \u003c 3 \u0026\u0026 y \u003e 1"}`, `{"sql":"SELECT a FROM t WHERE x < 3 && y > 1"}`},
		{`{ "b": 1,  "a": [1, 2] }`, `{"a":[1,2],"b":1}`},
		{`not json <`, `not json <`},
	} {
		if got := ReadableJSON(c.in); got != c.want {
			t.Errorf("ReadableJSON(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestNaturalCompare(t *testing.T) {
	ids := []string{"task10", "task2", "task1", "task02b", "task11", "a"}
	slices.SortFunc(ids, NaturalCompare)
	if want := []string{"a", "task1", "task2", "task02b", "task10", "task11"}; !slices.Equal(ids, want) {
		t.Errorf("natural order = %v, want %v", ids, want)
	}
}

func TestWordDiff(t *testing.T) {
	old, new := WordDiff("lemma: stars are 1 to 5 in every fdbk_gN table",
		"lemma: stars are 1 to 10 in fdbk_g1 and fdbk_g2 table")
	if old != "lemma: stars are 1 to [-5-] in [-every fdbk_gN-] table" ||
		new != "lemma: stars are 1 to {+10+} in {+fdbk_g1 and fdbk_g2+} table" {
		t.Errorf("WordDiff =\n%q\n%q", old, new)
	}
	for _, c := range [][2]string{{"same words", "same words"}, {"lemma: one thing", "lemma: something else entirely new"}} {
		if o, n := WordDiff(c[0], c[1]); o != c[0] || n != c[1] {
			t.Errorf("WordDiff(%q, %q) marked %q %q; want them as they are", c[0], c[1], o, n)
		}
	}
}

// tagged spells s in Unicode tag characters, as a hidden instruction is.
func tagged(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(0xe0000 + r)
	}
	return b.String()
}
