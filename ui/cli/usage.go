package cli

import (
	"fmt"
	"io"
	"strings"
)

// usageWidth is the width 'memreview --help' fits its list of commands
// to: an 80-column terminal.
const usageWidth = 80

// writeSummaries lists the commands, a name and its summary a row, the
// summaries wrapped at word breaks under their column so that each stays
// one whole sentence in usageWidth columns (a terminal that cuts or wraps
// a long line would end it mid-sentence or under the names).
func writeSummaries(w io.Writer, cs []*command) {
	col := 0
	for _, c := range cs {
		col = max(col, len(c.name))
	}
	lead := 2 + col + 2
	room := max(usageWidth-lead, 20)
	for _, c := range cs {
		for i, line := range wrapWords(c.summary, room) {
			name := ""
			if i == 0 {
				name = c.name
			}
			fmt.Fprintf(w, "  %-*s  %s\n", col, name, line)
		}
	}
}

// wrapWords breaks s at spaces into lines of at most w runes (a word
// longer than w has a line of its own).
func wrapWords(s string, w int) []string {
	var lines []string
	cur := ""
	for _, word := range strings.Fields(s) {
		switch {
		case cur == "":
			cur = word
		case len([]rune(cur))+1+len([]rune(word)) <= w:
			cur += " " + word
		default:
			lines = append(lines, cur)
			cur = word
		}
	}
	return append(lines, cur)
}
