package eval

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

// ProbeFunc runs one read-only probe on a named environment: the
// service's Probe, with its caps and time limit.
type ProbeFunc func(ctx context.Context, env, input string) probe.Result

// Grade grades an answer to t (docs/FORMATS.md, "Task sets"). The grading
// probe runs first: when it fails, or a SQL probe does not give exactly
// one row, the task is Ungradable whatever the answer. Otherwise the
// answer must match every grading given: Expect, and the probe's row (its
// cells against the answer's comma-separated fields; a text probe's text
// against the whole answer). Numbers match within the tolerance, text
// ignoring case and runs of white space. No answer fails.
func Grade(ctx context.Context, run ProbeFunc, t *review.Task, answer string, answered bool) (Status, string) {
	var want [][]string // one list of cells per grading
	if p := strings.TrimSpace(t.Grading.Probe); p != "" {
		res := run(ctx, t.Env, p)
		if !res.OK() {
			return Ungradable, "the grading probe failed: " + res.Error
		}
		cells, err := probeCells(res)
		if err != nil {
			return Ungradable, "the grading probe " + err.Error()
		}
		want = append(want, cells)
	}
	if e := strings.TrimSpace(string(t.Grading.Expect)); e != "" {
		want = append(want, []string{e})
	}
	if !answered {
		return Failed, "no answer"
	}
	for _, cells := range want {
		if ok, why := Matches(answer, cells, t.Grading.Tolerance); !ok {
			return Failed, why
		}
	}
	return Passed, fmt.Sprintf("the answer %q matches %s", clip(answer, 80), strings.Join(want[0], ", "))
}

// probeCells is what a grading probe's result says the answer is.
func probeCells(res probe.Result) ([]string, error) {
	if len(res.Columns) == 0 && len(res.Rows) == 0 {
		return []string{strings.TrimSpace(res.Text)}, nil
	}
	if len(res.Rows) != 1 {
		return nil, fmt.Errorf("gave %d rows; a grading probe gives one", len(res.Rows))
	}
	cells := make([]string, len(res.Rows[0]))
	for i, v := range res.Rows[0] {
		cells[i] = cellText(v)
	}
	return cells, nil
}

func cellText(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(v, 10)
	case []byte:
		return string(v)
	}
	return fmt.Sprint(v)
}

// Matches reports whether answer matches want: one cell against the whole
// answer, several against its comma-separated fields in order. A cell
// that is a number matches a field that is a number (a leading $, £ or €,
// a trailing %, and thousands separators inside a single number are
// dropped) within tol; other cells match text ignoring case and runs of
// white space. why says what did not match.
func Matches(answer string, want []string, tol float64) (ok bool, why string) {
	fields := []string{answer}
	if len(want) > 1 {
		fields = strings.Split(answer, ",")
		if len(fields) != len(want) {
			return false, fmt.Sprintf("the answer %q has %d fields, want %d (%s)", clip(answer, 80), len(fields), len(want), strings.Join(want, ", "))
		}
	}
	for i, w := range want {
		if !fieldMatches(fields[i], w, tol, len(want) == 1) {
			return false, fmt.Sprintf("the answer %q is not %s", clip(answer, 80), strings.Join(want, ", "))
		}
	}
	return true, ""
}

func fieldMatches(field, want string, tol float64, whole bool) bool {
	if w, ok := number(want, false); ok {
		f, ok := number(field, whole)
		if !ok {
			return false
		}
		return math.Abs(f-w) <= tol+1e-9*math.Max(1, math.Abs(w)) // the slack absorbs rounding in the subtraction
	}
	return normText(field) == normText(want)
}

// number reads s as a number; thousands separators are allowed when s is
// the whole answer (no field splitting took the commas).
func number(s string, commas bool) (float64, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimRight(s, ".")
	s = strings.TrimSuffix(s, "%")
	for _, sym := range []string{"$", "£", "€"} {
		s = strings.TrimPrefix(s, sym)
	}
	if commas {
		s = strings.ReplaceAll(s, ",", "")
	}
	s = strings.ReplaceAll(s, "_", "")
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

func normText(s string) string {
	s = strings.Trim(strings.TrimSpace(s), `"'.`)
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
