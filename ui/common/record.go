package common

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/memreview/memreview/review"
)

// Field is one line of a record as screens show it: "name: value".
type Field struct{ Name, Value string }

// RecordFields lists every field of r that an operator judges, in a fixed
// order; empty optional fields are left out. Nil gives none. Values are
// Printable: record text comes from the curator, and a newline or escape
// sequence in it must not break the screen's lines or be obeyed.
func RecordFields(r *review.Record) []Field {
	fs := rawFields(r)
	for i := range fs {
		fs[i].Value = Printable(fs[i].Value)
	}
	return fs
}

// rawFields is RecordFields before Printable, for comparing values.
func rawFields(r *review.Record) []Field {
	if r == nil {
		return nil
	}
	fs := []Field{
		{"lemma", r.Lemma},
		{"category", string(r.Category)},
		{"env", r.Scope.Env},
		{"tags", strings.Join(r.Scope.Tags, ", ")},
		{"task family", r.Scope.TaskFamily},
		{"trigger", r.Trigger},
	}
	for i, s := range r.Steps {
		fs = append(fs, Field{fmt.Sprintf("step %d", i+1), s})
	}
	fs = append(fs,
		Field{"confidence", strconv.FormatFloat(r.Confidence, 'f', 2, 64)},
		Field{"priority", intOrEmpty(r.Priority)},
		Field{"status", string(r.Status)},
	)
	pv := r.Provenance
	if pv.Trajectory != "" {
		v := pv.Trajectory
		if pv.Steps != nil {
			v += " " + StepRange(*pv.Steps)
		}
		fs = append(fs, Field{"from", v})
	}
	fs = append(fs,
		Field{"probe runs", strings.Join(pv.ProbeRuns, ", ")},
		Field{"merged from", strings.Join(pv.MergedFrom, ", ")},
		Field{"merged into", pv.MergedInto},
	)
	for i, c := range r.Checks {
		fs = append(fs, Field{fmt.Sprintf("check %d", i+1), c.Env + ": " + c.Input})
	}
	out := fs[:0]
	for _, f := range fs {
		if f.Value != "" {
			out = append(out, f)
		}
	}
	return out
}

func intOrEmpty(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// StepRange says "step 4" or "steps 4–7".
func StepRange(r review.StepRange) string {
	if r.From == r.To {
		return fmt.Sprintf("step %d", r.From)
	}
	return fmt.Sprintf("steps %d–%d", r.From, r.To)
}

// DiffLine is one line of a field diff: Op is ' ', '-' or '+'.
type DiffLine struct {
	Op   byte
	Text string
}

// DiffFields is a line diff of two records' fields: unchanged fields once,
// changed ones as "- old" then "+ new", in the order the fields appear in
// the old record, then fields only the new one has. Values are compared as
// stored and shown Printable.
func DiffFields(old, new *review.Record) []DiffLine {
	a, b := rawFields(old), rawFields(new)
	bv := map[string]string{}
	for _, f := range b {
		bv[f.Name] = f.Value
	}
	line := func(op byte, name, v string) DiffLine { return DiffLine{op, name + ": " + Printable(v)} }
	seen := map[string]bool{}
	var out []DiffLine
	for _, f := range a {
		seen[f.Name] = true
		nv, ok := bv[f.Name]
		switch {
		case !ok:
			out = append(out, line('-', f.Name, f.Value))
		case nv == f.Value:
			out = append(out, line(' ', f.Name, f.Value))
		default:
			out = append(out, line('-', f.Name, f.Value), line('+', f.Name, nv))
		}
	}
	for _, f := range b {
		if !seen[f.Name] {
			out = append(out, line('+', f.Name, f.Value))
		}
	}
	return out
}
