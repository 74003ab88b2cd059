package eval

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
)

// The text of a run's report, shared by the Eval screen and the eval
// command: plain lines (no colour), cut to a width, readable in NO_COLOR.

// Header is a run's one-line summary.
func Header(rep *app.EvalReport) string {
	p := rep.Plan
	state := "done"
	switch {
	case rep.Running:
		state = "running"
	case rep.Done < rep.Total:
		state = "stopped (eval --resume " + p.ID + " finishes it)"
	}
	return fmt.Sprintf("%s · %s · %d tasks × %d conditions × %d run%s · model %s · %d/%d task runs, %s",
		p.ID, p.Started.UTC().Format("2006-01-02 15:04"), len(p.Tasks), len(p.Conditions), p.Runs, plural(p.Runs), p.Model, rep.Done, rep.Total, state)
}

// TableLines is the per-condition table cut to width w: pass rate with
// its 95% interval, reward, tool calls, tokens and cost (means per task,
// the cost per repetition of the whole task set). full adds the intervals
// of the other figures.
func TableLines(rep *app.EvalReport, w int, full bool) []string {
	cols := []string{"condition", "pass", "95% CI", "reward", "calls", "tok in", "tok out", "cost"}
	rows := make([][]any, 0, len(rep.Conditions))
	for _, c := range rep.Conditions {
		rows = append(rows, []any{common.PrintableLine(c.Name), pct(c.PassRate.Mean), ci(c.PassRate),
			withCI(c.Reward, "%.2f", full), withCI(c.ToolCalls, "%.1f", full), withCI(c.InputTokens, "%.0f", full),
			withCI(c.Output, "%.0f", full), cost(c.Cost, full)})
	}
	return common.Table(cols, rows, w, 0)
}

// FaultLines says, per condition, what went wrong with the model: none
// when nothing did.
func FaultLines(rep *app.EvalReport, w int) []string {
	var out []string
	for _, c := range rep.Conditions {
		var parts []string
		if s := c.Faults.String(); s != "" {
			parts = append(parts, s)
		}
		if c.Error > 0 {
			parts = append(parts, fmt.Sprintf("%d ended in a model error", c.Error))
		}
		if c.Ungradable > 0 {
			parts = append(parts, fmt.Sprintf("%d ungradable (the grading probe failed)", c.Ungradable))
		}
		if len(parts) > 0 {
			out = append(out, ansi.Truncate(common.PrintableLine(c.Name)+": "+strings.Join(parts, ", "), w, "…"))
		}
	}
	return out
}

// The glyphs of the chart: a column's height is the pass rate of the
// tasks it stands for, ▁ none of them, █ all; a blank column has no
// graded task run yet.
var levels = []rune("▁▂▃▄▅▆▇█")

// ChartLines is the pass rate over the task sequence: one line per
// condition, one column per task (two to four when the width allows;
// tasks share a column, averaged, when there are more than fit), then an
// axis numbering the tasks. It reads without colour.
func ChartLines(rep *app.EvalReport, w int) []string {
	n := len(rep.ByIndex)
	if n == 0 || w < 12 {
		return nil
	}
	label := 4
	for _, c := range rep.Plan.Conditions {
		label = max(label, min(ansi.StringWidth(common.PrintableLine(c)), 24))
	}
	label = min(label, w/3)
	avail := w - label - 1
	cols := min(n, avail)
	each := min(max(avail/n, 1), 4) // columns per task
	if cols < n {
		each = 1
	}
	out := make([]string, 0, len(rep.Plan.Conditions)+1)
	for _, c := range rep.Plan.Conditions {
		var b strings.Builder
		for col := range cols {
			lo, hi := col*n/cols, (col+1)*n/cols
			sum, k := 0.0, 0
			for i := lo; i < hi; i++ {
				if v := rep.ByIndex[i].Pass[c]; !math.IsNaN(v) {
					sum += v
					k++
				}
			}
			g := " "
			if k > 0 {
				g = string(levels[int(math.Round(sum/float64(k)*float64(len(levels)-1)))])
			}
			b.WriteString(strings.Repeat(g, each))
		}
		out = append(out, pad(common.PrintableLine(c), label)+" "+b.String())
	}
	return append(out, pad("task", label)+" "+axis(n, cols*each))
}

// axis numbers the chart's columns: 1 under the first, then every tenth
// task where it fits.
func axis(n, cols int) string {
	line := []rune(strings.Repeat(" ", cols))
	put := func(col int, s string) {
		col = min(col, cols-len(s)) // the last number ends at the edge
		if col < 0 {
			return
		}
		for i := col - 1; i < col+len(s); i++ {
			if i >= 0 && line[i] != ' ' {
				return // keep a gap between numbers
			}
		}
		copy(line[col:], []rune(s))
	}
	put(0, "1")
	for t := 10; t <= n; t += 10 {
		put((t-1)*cols/n, fmt.Sprint(t))
	}
	return string(line)
}

// ProgressLine is a run in progress: a bar, the count and the time left.
func ProgressLine(done, total int, eta time.Duration, w int) string {
	if total <= 0 {
		return ""
	}
	text := fmt.Sprintf(" %d/%d", done, total)
	if eta > 0 {
		text += " · " + eta.Round(time.Second).String() + " left"
	}
	bar := max(w-ansi.StringWidth(text)-2, 4)
	fill := bar * done / total
	return "[" + strings.Repeat("█", fill) + strings.Repeat("░", bar-fill) + "]" + text
}

func pad(s string, w int) string {
	s = ansi.Truncate(s, w, "…")
	return s + strings.Repeat(" ", max(w-ansi.StringWidth(s), 0))
}

func pct(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*x)
}

func ci(iv app.EvalInterval) string {
	if !iv.HasCI() {
		return "–"
	}
	return fmt.Sprintf("%.1f–%.1f", 100*max(iv.Lo, 0), 100*min(iv.Hi, 1)) // a rate's interval, within 0–100%
}

func withCI(iv app.EvalInterval, format string, full bool) string {
	if math.IsNaN(iv.Mean) {
		return "–"
	}
	s := fmt.Sprintf(format, iv.Mean)
	if full && iv.HasCI() {
		s += "±" + fmt.Sprintf(format, (iv.Hi-iv.Lo)/2)
	}
	return s
}

func cost(iv app.EvalInterval, full bool) string {
	if math.IsNaN(iv.Mean) {
		return "–"
	}
	s := fmt.Sprintf("$%.4f", iv.Mean)
	if full && iv.HasCI() {
		s += fmt.Sprintf("±%.4f", (iv.Hi-iv.Lo)/2)
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// RecordsLine names the records that made the most difference between
// the bank and no memory, by the tasks they helped less those they hurt:
// "records: mem_0004 +8, mem_0006 +4 · hurt: mem_0031 −1"; "" when the run
// has no none and bank conditions or no record made a difference.
func RecordsLine(rep *app.EvalReport, w int) string {
	var helped, hurt []*app.RecordEffect
	for _, e := range rep.Records {
		switch net := len(e.Helped) - len(e.Hurt); {
		case net > 0:
			helped = append(helped, e)
		case net < 0:
			hurt = append(hurt, e)
		}
	}
	if len(helped)+len(hurt) == 0 {
		return ""
	}
	byNet := func(es []*app.RecordEffect, sign int) string {
		sort.Slice(es, func(i, j int) bool {
			a, b := sign*(len(es[i].Helped)-len(es[i].Hurt)), sign*(len(es[j].Helped)-len(es[j].Hurt))
			if a != b {
				return a > b
			}
			return es[i].Record < es[j].Record
		})
		var parts []string
		for _, e := range es[:min(len(es), 6)] {
			parts = append(parts, fmt.Sprintf("%s %+d", common.PrintableLine(e.Record), len(e.Helped)-len(e.Hurt)))
		}
		return strings.Join(parts, ", ")
	}
	var parts []string
	if len(helped) > 0 {
		parts = append(parts, "records that helped (tasks passed with the bank, not without): "+byNet(helped, 1))
	}
	if len(hurt) > 0 {
		parts = append(parts, "hurt: "+byNet(hurt, -1))
	}
	return ansi.Truncate(strings.Join(parts, " · "), w, "…")
}
