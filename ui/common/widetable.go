package common

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// WideTable is a probe table laid out at its content's width, for a pane
// that shows a horizontal window of it (the review screen's probes pane:
// ←/→ scroll it sideways) instead of cutting its columns to fit.
type WideTable struct {
	Lines  []string // header, rule, then one line per row; none is wider than Width
	Starts []int    // the first display column of each column
	Widths []int    // each column's width
	Width  int      // the widest line
	names  []string // the header cells
}

// MaxWideCell caps a column of a WideTable: a cell longer than this (a
// 64 KiB text) is cut there, and only the full-text view shows it whole.
const MaxWideCell = 240

// LayOutTable lays rows out under cols as Table does, each column as wide
// as its widest cell (at most MaxWideCell), whatever the width.
func LayOutTable(cols []string, rows [][]any) WideTable {
	cells := tableCells(cols, rows)
	widths := columnWidths(cells, MaxWideCell)
	t := WideTable{Lines: tableLines(cells, widths), Widths: widths, Starts: make([]int, len(widths)), names: cells[0]}
	x := 0
	for j, cw := range widths {
		t.Starts[j] = x
		x += cw + 3 // " │ "
	}
	for _, l := range t.Lines {
		t.Width = max(t.Width, ansi.StringWidth(l))
	}
	return t
}

// Window returns each line's part from display column x, w columns wide
// (shorter where a line ends sooner); a line that goes on past the right
// edge ends in "…" there. A wide character cut by the left edge is left
// out. When the window starts inside a column, the header line
// begins with that column's name after "‹ ", so every cell shown stays
// under a name.
func (t WideTable) Window(x, w int) []string {
	out := make([]string, len(t.Lines))
	for i, l := range t.Lines {
		tail := "…"
		if i == 1 {
			tail = "" // the rule
		}
		out[i] = ansi.Truncate(ansi.Cut(l, x, t.Width), w, tail)
	}
	if len(out) == 0 {
		return out
	}
	for j, s := range t.Starts {
		if s < x && x < s+t.Widths[j] {
			label := "‹ " + t.names[j]
			room := s + t.Widths[j] - x // up to the column's end
			if lw := ansi.StringWidth(label); lw < room {
				room = lw
			}
			label = ansi.Truncate(label, min(room, w), "…")
			lw := ansi.StringWidth(label)
			out[0] = strings.TrimRight(label+ansi.Cut(FitLine(out[0], w), lw, w), " ")
		}
	}
	return out
}

// Shown returns the first and last columns a window from x, w wide shows
// at least in part, and whether either is only in part.
func (t WideTable) Shown(x, w int) (first, last int, partly bool) {
	first, last = -1, -1
	for j, s := range t.Starts {
		end := s + t.Widths[j] // exclusive
		if end <= x || s >= x+w {
			continue
		}
		if first < 0 {
			first = j
		}
		last = j
		partly = partly || s < x || end > x+w
	}
	return first, last, partly
}

// Overflows reports whether a window w wide cannot show the whole table.
func (t WideTable) Overflows(w int) bool { return t.Width > w }

// tableCells is the header and rows as printable one-line cell texts.
func tableCells(cols []string, rows [][]any) [][]string {
	cells := make([][]string, 0, len(rows)+1)
	head := make([]string, len(cols))
	for j, c := range cols {
		head[j] = CellText(c)
	}
	cells = append(cells, head)
	for _, r := range rows {
		line := make([]string, len(cols))
		for j := range cols {
			if j < len(r) {
				line[j] = CellText(r[j])
			}
		}
		cells = append(cells, line)
	}
	return cells
}

// columnWidths is each column's widest cell, at most maxCol (0: no cap).
func columnWidths(cells [][]string, maxCol int) []int {
	var widths []int
	if len(cells) > 0 {
		widths = make([]int, len(cells[0]))
	}
	for _, line := range cells {
		for j, c := range line {
			cw := ansi.StringWidth(c)
			if maxCol > 0 {
				cw = min(cw, maxCol)
			}
			widths[j] = max(widths[j], cw)
		}
	}
	return widths
}

// tableLines joins the cells at the given widths (a cell wider is cut,
// ending in "…"), with the rule under the header.
func tableLines(cells [][]string, widths []int) []string {
	out := make([]string, 0, len(cells)+1)
	for i, line := range cells {
		parts := make([]string, len(line))
		for j, c := range line {
			parts[j] = FitLine(c, widths[j])
		}
		out = append(out, strings.TrimRight(strings.Join(parts, " │ "), " "))
		if i == 0 {
			rule := make([]string, len(widths))
			for j, cw := range widths {
				rule[j] = strings.Repeat("─", cw)
			}
			out = append(out, strings.Join(rule, "─┼─"))
		}
	}
	return out
}

// CellFullText is how the full-text view shows one value: as CellText,
// but a text keeps its line breaks (made printable).
func CellFullText(v any) string {
	if s, ok := v.(string); ok {
		return Printable(s)
	}
	return CellText(v)
}

// FullRows is rows in full for the full-text views: each row under a
// "row N" label, one "column: value" line per cell, the value wrapped at w
// under its column and never cut (CellFullText).
func FullRows(st *Styles, cols []string, rows [][]any, w int) string {
	var b strings.Builder
	names := make([]string, len(cols))
	for j, c := range cols {
		names[j] = CellText(c)
	}
	for i, row := range rows {
		b.WriteString(st.Label.Render("row "+strconv.Itoa(i+1)) + "\n")
		for j := range cols {
			var v any
			if j < len(row) {
				v = row[j]
			}
			b.WriteString(Indent("  "+names[j]+": ", CellFullText(v), w, 4) + "\n")
		}
	}
	return b.String()
}

// TableWidth is the width Table needs to show every cell whole.
func TableWidth(cols []string, rows [][]any) int {
	widths := columnWidths(tableCells(cols, rows), 0)
	n := 3 * max(len(widths)-1, 0)
	for _, cw := range widths {
		n += cw
	}
	return n
}
