package common

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestWideTableWindow: a table wider than its window is laid out at its
// content's width, and the window from x shows exactly columns x to x+w of
// every line, with the cut column's name kept at the header's start, and
// says which columns it shows.
func TestWideTableWindow(t *testing.T) {
	sql := "CREATE TABLE attrs_g2_ext (item_id INTEGER PRIMARY KEY, warranty_months INTEGER, connectivity TEXT)"
	tb := LayOutTable([]string{"name", "sql"}, [][]any{{"attrs_g2_core", "CREATE TABLE attrs_g2_core (item_id)"}, {"attrs_g2_ext", sql}})
	nameW := len("attrs_g2_core")
	if want := nameW + 3 + len(sql); tb.Width != want {
		t.Fatalf("width %d, want %d (nothing cut)", tb.Width, want)
	}
	if tb.Starts[0] != 0 || tb.Starts[1] != nameW+3 || tb.Widths[1] != len(sql) {
		t.Fatalf("starts %v widths %v", tb.Starts, tb.Widths)
	}
	if !strings.Contains(tb.Lines[3], sql) {
		t.Fatalf("the full row lacks the whole sql: %q", tb.Lines[3])
	}
	if tb.Overflows(tb.Width) || !tb.Overflows(40) {
		t.Errorf("Overflows wrong: %v at its width, %v at 40", tb.Overflows(tb.Width), tb.Overflows(40))
	}

	const w = 40
	if row := tb.Window(0, w)[3]; row != "attrs_g2_ext  │ CREATE TABLE attrs_g2_e…" {
		t.Errorf("the row's left window is %q, want it cut with …", row)
	}
	first, last, partly := tb.Shown(0, w)
	if first != 0 || last != 1 || !partly {
		t.Errorf("Shown(0) = %d %d %v, want columns 0–1, the last in part", first, last, partly)
	}
	x := tb.Width - w // scrolled to the right edge
	win := tb.Window(x, w)
	if len(win) != len(tb.Lines) {
		t.Fatalf("%d lines, want %d", len(win), len(tb.Lines))
	}
	if got, want := win[3], sql[len(sql)-w:]; got != want {
		t.Errorf("the row's window is %q, want %q", got, want)
	}
	for i, l := range win {
		if ansi.StringWidth(l) > w {
			t.Errorf("line %d is %d wide: %q", i, ansi.StringWidth(l), l)
		}
	}
	if !strings.HasPrefix(win[0], "‹ sql") {
		t.Errorf("the header does not name the cut column: %q", win[0])
	}
	if win[1] != strings.Repeat("─", w) {
		t.Errorf("rule %q", win[1])
	}
	first, last, partly = tb.Shown(x, w)
	if first != 1 || last != 1 || !partly {
		t.Errorf("Shown(right edge) = %d %d %v, want column 1 only, in part", first, last, partly)
	}
	// A window over the whole width shows every column whole.
	if first, last, partly := tb.Shown(0, tb.Width); first != 0 || last != 1 || partly {
		t.Errorf("Shown(all) = %d %d %v", first, last, partly)
	}
	// A window straddling the separator names the second column as shown.
	if first, last, _ := tb.Shown(nameW-2, 6); first != 0 || last != 1 {
		t.Errorf("Shown(straddle) = %d %d", first, last)
	}
}

// TestWideTableCapsAndEscapes: a huge cell is capped at MaxWideCell and
// control characters never reach a line.
func TestWideTableCapsAndEscapes(t *testing.T) {
	tb := LayOutTable([]string{"a\x1b[31m"}, [][]any{{strings.Repeat("y", 10*MaxWideCell)}, {"x\x1b]0;pwn\x07\r\nz"}})
	if tb.Width != MaxWideCell {
		t.Errorf("width %d, want the cap %d", tb.Width, MaxWideCell)
	}
	for _, l := range tb.Lines {
		if strings.ContainsAny(l, "\x1b\x07\r\n") {
			t.Errorf("a raw control character in %q", l)
		}
	}
	if full := CellFullText("x\x1b]0;pwn\x07\r\nz"); strings.ContainsAny(full, "\x1b\x07\r") || !strings.Contains(full, "\n") {
		t.Errorf("CellFullText %q: want printable with its line break", full)
	}
}
