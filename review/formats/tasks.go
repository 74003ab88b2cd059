package formats

// The task-set reader: memreview eval's input, one review.Task a line
// (docs/FORMATS.md, "Task sets").

import (
	"fmt"
	"io"
	"sort"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/printable"
)

// MaxTasks is the most tasks one task set may hold.
const MaxTasks = 100_000

// TaskLine is a task and the line it came from.
type TaskLine struct {
	review.Task
	Line int
}

// ReadTasks reads a task set: JSON Lines, one task a line. The whole input
// is checked before anything is returned: unknown fields, a missing id,
// env or text, a task without grading, a negative tolerance, a duplicate
// id, or an environment knownEnv refuses (nil: any) are one *InputError
// naming file, line and field. The tasks come back in sequence order: by
// order, ties (and tasks without one) in file order.
func ReadTasks(r io.Reader, file string, knownEnv func(string) bool) ([]TaskLine, error) {
	lines, err := readJSONLines(r, file, review.MaxLineBytes)
	if err != nil {
		return nil, err
	}
	if len(lines) > MaxTasks {
		return nil, inputErr(file, lines[MaxTasks].n, "", "more than %d tasks in one task set", MaxTasks)
	}
	out := make([]TaskLine, len(lines))
	seen := map[string]int{}
	for i, l := range lines {
		t := &out[i]
		t.Line = l.n
		if err := decodeLine(file, l.n, l.data, &t.Task, true); err != nil {
			return nil, err
		}
		if field, msg := review.CheckTask(&t.Task); msg != "" {
			return nil, inputErr(file, l.n, field, "%s", msg)
		}
		if first, dup := seen[t.ID]; dup {
			return nil, inputErr(file, l.n, "id", "duplicate id %s (first on line %d)", printable.Line(t.ID), first)
		}
		seen[t.ID] = l.n
		if knownEnv != nil && !knownEnv(t.Env) {
			return nil, inputErr(file, l.n, "env", "no environment %s is declared in the bank's memreview.toml (see 'memreview env list')", printable.Line(t.Env))
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Order < out[j].Order })
	return out, nil
}

// WriteTasks writes tasks as JSON Lines, one a line.
func WriteTasks(w io.Writer, tasks []review.Task) error {
	for i := range tasks {
		if field, msg := review.CheckTask(&tasks[i]); msg != "" {
			return fmt.Errorf("task %d (%s): field %q: %s", i+1, printable.Line(tasks[i].ID), field, msg)
		}
	}
	return WriteJSONL(w, tasks)
}
