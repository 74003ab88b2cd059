package common

import (
	"fmt"
	"strings"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

// Expects says in one line what a check expects: its baseline's error,
// rows or text, or that it has none yet.
func Expects(c review.Check) string {
	if !c.HasBaseline() {
		return "nothing yet: no baseline"
	}
	return ResultLine(c.Expect)
}

// ResultLine says in one line what a probe result holds: "error: …",
// "3 rows: a=1, b=2; …" or its first line of text and how many there are.
func ResultLine(r probe.Result) string {
	switch {
	case r.Error != "":
		return "error: " + PrintableLine(r.Error)
	case len(r.Columns) > 0 || len(r.Rows) > 0:
		s := fmt.Sprintf("%d rows", len(r.Rows))
		if len(r.Rows) == 1 {
			s = "1 row"
		}
		if len(r.Rows) > 0 {
			var cells []string
			for i, v := range r.Rows[0] {
				name := ""
				if i < len(r.Columns) {
					name = r.Columns[i] + "="
				}
				cells = append(cells, name+PrintableLine(fmt.Sprint(v)))
			}
			s += ": " + strings.Join(cells, ", ")
			if len(r.Rows) > 1 {
				s += "; …"
			}
		}
		return s
	}
	text := strings.TrimRight(r.Text, "\n")
	if text == "" {
		return "no output"
	}
	lines := strings.Split(text, "\n")
	s := PrintableLine(lines[0])
	if len(lines) > 1 {
		s += fmt.Sprintf(" (%d lines)", len(lines))
	}
	return s
}
