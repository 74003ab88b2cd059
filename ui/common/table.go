package common

import (
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/probe"
)

// Table lays a probe's result rows out under their column names, for the
// probe console and the review screen's probes pane: a header line, a rule,
// then one line per row, columns separated by " │ ". Each column is as wide
// as its widest cell, at most maxCol (0: no cap), and the widest columns are
// cut further until the table fits width w; cut cells end in "…". It says
// nothing about the row count: the caller adds its own footer.
func Table(cols []string, rows [][]any, w, maxCol int) []string {
	cells := tableCells(cols, rows)
	widths := columnWidths(cells, maxCol)
	fitColumns(widths, w-3*(len(cols)-1))
	lines := tableLines(cells, widths)
	for i, l := range lines {
		cut := "…"
		if i == 1 {
			cut = "" // the rule
		}
		lines[i] = ansi.Truncate(l, w, cut)
	}
	return lines
}

// fitColumns caps the widest columns so the widths sum to at most avail,
// keeping every column at least 3 wide.
func fitColumns(widths []int, avail int) {
	sum, hi := 0, 0
	for _, x := range widths {
		sum += x
		hi = max(hi, x)
	}
	if sum <= avail {
		return
	}
	capped := func(c int) int {
		s := 0
		for _, x := range widths {
			s += min(x, c)
		}
		return s
	}
	lo := 3
	for lo < hi { // the largest cap that fits
		mid := (lo + hi + 1) / 2
		if capped(mid) <= avail {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	for i := range widths {
		widths[i] = min(widths[i], lo)
	}
}

// CellText is how a table shows one value: NULL, numbers and other values
// exactly as the CLI's probe tables show them (probe.CellText); text on
// one line (line breaks become spaces), made printable for the screen.
func CellText(v any) string {
	if s, ok := v.(string); ok {
		return PrintableLine(s)
	}
	return PrintableLine(probe.CellText(v))
}
