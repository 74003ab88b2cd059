package common

import (
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

func TestPaneWidths(t *testing.T) {
	cases := []struct {
		w, wide, pct int
		detail       bool
		list, det    int
	}{
		{80, 100, 45, false, 80, 0},
		{80, 100, 45, true, 0, 80},
		{100, 100, 45, false, 45, 55},
		{201, 100, 40, true, 80, 121},
	}
	for _, c := range cases {
		l, d := PaneWidths(c.w, c.wide, c.pct, c.detail)
		if l != c.list || d != c.det {
			t.Errorf("PaneWidths(%d, %d, %d, %v) = %d, %d, want %d, %d", c.w, c.wide, c.pct, c.detail, l, d, c.list, c.det)
		}
	}
}

func TestSpread(t *testing.T) {
	if got := Spread("ab", "cd", 8); got != "ab    cd" {
		t.Errorf("Spread fits: %q", got)
	}
	if got := Spread("abcdef", "ghij", 8); ansi.StringWidth(got) != 8 || !strings.HasPrefix(got, "abcdef ") {
		t.Errorf("Spread cut: %q", got)
	}
}

func TestTable(t *testing.T) {
	rows := [][]any{{"a", 1.5}, {nil, "x\ny"}}
	got := Table([]string{"name", "value"}, rows, 40, 0)
	want := []string{"name │ value", "─────┼──────", "a    │ 1.5", "NULL │ x y"}
	if !slices.Equal(got, want) {
		t.Errorf("Table = %q, want %q", got, want)
	}
	// Too narrow: the widest column is cut, every line fits.
	wide := [][]any{{strings.Repeat("long ", 10), "b"}}
	for _, l := range Table([]string{"text", "v"}, wide, 20, 0) {
		if ansi.StringWidth(l) > 20 {
			t.Errorf("Table line %q is wider than 20", l)
		}
	}
	if got := Table([]string{"text", "v"}, wide, 80, 8)[2]; got != "long lo… │ b" {
		t.Errorf("Table with maxCol 8: %q", got)
	}
}

// TestMoveStep maps each movement key to its step in a list of 50 rows,
// 10 on screen, and reports any other key as none.
func TestMoveStep(t *testing.T) {
	k := DefaultKeyMap()
	runes := func(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }
	cases := []struct {
		msg  tea.KeyMsg
		step int
		ok   bool
	}{
		{runes("k"), -1, true},
		{tea.KeyMsg{Type: tea.KeyDown}, 1, true},
		{tea.KeyMsg{Type: tea.KeyPgUp}, -10, true},
		{tea.KeyMsg{Type: tea.KeyCtrlD}, 10, true},
		{runes("g"), -50, true},
		{tea.KeyMsg{Type: tea.KeyEnd}, 50, true},
		{runes("x"), 0, false},
		{tea.KeyMsg{Type: tea.KeyEnter}, 0, false},
	}
	for _, c := range cases {
		if step, ok := MoveStep(k, c.msg, 10, 50); step != c.step || ok != c.ok {
			t.Errorf("%s: step %d, %v; want %d, %v", c.msg, step, ok, c.step, c.ok)
		}
	}
}
