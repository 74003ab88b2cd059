package common

import (
	"strings"

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
	widths := make([]int, len(cols))
	for _, line := range cells {
		for j, c := range line {
			cw := ansi.StringWidth(c)
			if maxCol > 0 {
				cw = min(cw, maxCol)
			}
			widths[j] = max(widths[j], cw)
		}
	}
	fitColumns(widths, w-3*(len(cols)-1))
	out := make([]string, 0, len(cells)+1)
	for i, line := range cells {
		parts := make([]string, len(line))
		for j, c := range line {
			parts[j] = FitLine(c, widths[j])
		}
		out = append(out, ansi.Truncate(strings.TrimRight(strings.Join(parts, " │ "), " "), w, "…"))
		if i == 0 {
			rule := make([]string, len(widths))
			for j, cw := range widths {
				rule[j] = strings.Repeat("─", cw)
			}
			out = append(out, ansi.Truncate(strings.Join(rule, "─┼─"), w, ""))
		}
	}
	return out
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
