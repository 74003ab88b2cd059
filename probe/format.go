package probe

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review/printable"
)

// FormatText renders r for a terminal: an aligned table when it has
// columns (numbers right-aligned, NULL for nil), otherwise its text, then
// "(truncated: …)" when a cap cut it, "(note: …)" when the result is
// qualified (an allow-listed MCP tool), and "error: …" when it failed. Lines
// wider than width are cut with "…"; width <= 0 means no cut. Control
// characters from the environment are shown escaped, so a probe can never
// send escape sequences to the terminal.
func FormatText(r Result, width int) string {
	var b strings.Builder
	switch {
	case len(r.Columns) > 0:
		writeTable(&b, r, width)
	case r.Text != "":
		for _, line := range strings.Split(strings.TrimSuffix(r.Text, "\n"), "\n") {
			b.WriteString(cut(sanitize(strings.TrimSuffix(line, "\r"), true), width))
			b.WriteByte('\n')
		}
	}
	if r.Truncated {
		what := "the output stopped at the probe's byte cap"
		if len(r.Columns) > 0 {
			what = fmt.Sprintf("showing the first %d rows; the probe stopped at its row or byte cap", len(r.Rows))
		}
		b.WriteString(cut("(truncated: "+what+")", width))
		b.WriteByte('\n')
	}
	if r.Note != "" {
		b.WriteString(cut("(note: "+sanitize(r.Note, false)+")", width))
		b.WriteByte('\n')
	}
	if r.Error != "" {
		b.WriteString(cut("error: "+sanitize(r.Error, false), width))
		b.WriteByte('\n')
	}
	return b.String()
}

func writeTable(b *strings.Builder, r Result, width int) {
	cells := make([][]string, 0, len(r.Rows)+1)
	header := make([]string, len(r.Columns))
	for i, c := range r.Columns {
		header[i] = sanitize(c, false)
	}
	cells = append(cells, header)
	numeric := make([]bool, len(r.Columns))
	for i := range numeric {
		numeric[i] = len(r.Rows) > 0
	}
	for _, row := range r.Rows {
		line := make([]string, len(r.Columns))
		for i := range line {
			if i >= len(row) {
				continue
			}
			line[i] = CellText(row[i])
			if _, isNum := asNumber(row[i]); !isNum && row[i] != nil {
				numeric[i] = false
			}
		}
		cells = append(cells, line)
	}
	widths := make([]int, len(r.Columns))
	for _, line := range cells {
		for i, c := range line {
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	for n, line := range cells {
		var l strings.Builder
		for i, c := range line {
			if i > 0 {
				l.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[i]-ansi.StringWidth(c))
			switch {
			case numeric[i] && n > 0:
				l.WriteString(pad + c)
			case i == len(line)-1:
				l.WriteString(c)
			default:
				l.WriteString(c + pad)
			}
		}
		b.WriteString(cut(l.String(), width))
		b.WriteByte('\n')
		if n == 0 {
			var sep strings.Builder
			for i, w := range widths {
				if i > 0 {
					sep.WriteString("  ")
				}
				sep.WriteString(strings.Repeat("─", w))
			}
			b.WriteString(cut(sep.String(), width))
			b.WriteByte('\n')
		}
	}
}

// asNumber reports whether v is a number, as a fresh or decoded run holds it.
func asNumber(v any) (float64, bool) {
	switch t := v.(type) {
	case int64:
		return float64(t), true
	case int:
		return float64(t), true
	case float64:
		return t, true
	}
	return 0, false
}

// CellText is how every probe table, the CLI's and the TUI's, shows one
// value: NULL for nil, numbers in their shortest exact form ('g'), text on
// one line with control characters escaped.
func CellText(v any) string {
	switch t := v.(type) {
	case nil:
		return "NULL"
	case string:
		return sanitize(t, false)
	case int64:
		return strconv.FormatInt(t, 10)
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	}
	return sanitize(fmt.Sprint(v), false)
}

// sanitize escapes what must not reach a terminal raw (printable.Line);
// tabs in text become four spaces when keepTab is set.
func sanitize(s string, keepTab bool) string {
	if keepTab {
		s = strings.ReplaceAll(s, "\t", "    ")
	}
	return printable.Line(s)
}

func cut(s string, width int) string {
	if width <= 0 || ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}
