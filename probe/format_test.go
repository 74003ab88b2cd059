package probe

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestFormatTextTable(t *testing.T) {
	t.Parallel()
	r := Result{
		Columns: []string{"name", "n", "note"},
		Rows: [][]any{
			{"São Paulo", int64(7), nil},
			{"東京", float64(2.5), "x"},
		},
	}
	got := FormatText(r, 0)
	want := "name       n    note\n" +
		"─────────  ───  ────\n" +
		"São Paulo    7  NULL\n" +
		"東京       2.5  x\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestFormatTextCutsAtWidth(t *testing.T) {
	t.Parallel()
	r := Result{
		Columns:   []string{"text"},
		Rows:      [][]any{{strings.Repeat("ü", 50)}},
		Truncated: true,
		Error:     "",
	}
	for _, line := range strings.Split(strings.TrimSuffix(FormatText(r, 20), "\n"), "\n") {
		if w := ansi.StringWidth(line); w > 20 {
			t.Errorf("line %q is %d cells wide, want at most 20", line, w)
		}
	}
	out := FormatText(r, 20)
	if !strings.Contains(out, "…") || !strings.Contains(out, "(truncated: ") {
		t.Errorf("got\n%s", out)
	}
}

func TestFormatTextTextAndError(t *testing.T) {
	t.Parallel()
	r := Result{Text: "a:1: hello\tworld\nb:2: \x1b[31mred\x1b[0m\n", Truncated: true}
	got := FormatText(r, 0)
	want := "a:1: hello    world\nb:2: \\x1b[31mred\\x1b[0m\n(truncated: the output stopped at the probe's byte cap)\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	got = FormatText(Result{Error: "refused: INSERT is not allowed"}, 0)
	if got != "error: refused: INSERT is not allowed\n" {
		t.Errorf("got %q", got)
	}
}

func TestParseFilesInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want filesOp
	}{
		{"ls", filesOp{Verb: "ls", Path: "."}},
		{`ls "my docs"`, filesOp{Verb: "ls", Path: "my docs"}},
		{`read it\'s.txt --offset 10 --limit 5`, filesOp{Verb: "read", Path: "it's.txt", Offset: 10, Limit: 5}},
		{`grep -i 'a b' docs`, filesOp{Verb: "grep", Path: "docs", Pattern: "a b", IgnoreCase: true}},
		{`grep "say \"hi\""`, filesOp{Verb: "grep", Path: ".", Pattern: `say "hi"`}},
		{"csv data/iris.csv", filesOp{Verb: "csv", Path: "data/iris.csv"}},
	}
	for _, c := range cases {
		got, err := parseFilesInput(c.in)
		if err != nil || got != c.want {
			t.Errorf("parseFilesInput(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}
