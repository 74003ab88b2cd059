package sample

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/memreview/memreview/review"
)

const shopSystem = `You are a data agent answering questions about the shop database (SQLite). Use the sql_query tool, one statement per call; it is read-only. Answer with the number or name asked for and one sentence of justification.`

const docsSystem = `You are a finance analyst agent. The workbooks folder holds CSV and markdown exports; read them with files_read and search them with files_grep. Show the figures you used and give the final answer on its own line.`

// tb builds one trajectory step by step. Tool results come from really
// running the query (or reading the file), so every number in the story
// matches the environment the step ran against.
type tb struct {
	w     *world
	t     *review.Trajectory
	db    *sql.DB
	calls int
}

// res is one SQL tool result.
type res struct {
	step int
	cols []string
	rows [][]any
	err  error
}

// cell returns row r, column c as text ("" when absent).
func (r res) cell(row, col int) string {
	if row >= len(r.rows) || col >= len(r.rows[row]) {
		return ""
	}
	return format(r.rows[row][col])
}

// num returns row r, column c as a number (0 when absent).
func (r res) num(row, col int) float64 {
	f, _ := strconv.ParseFloat(r.cell(row, col), 64)
	return f
}

// traj starts trajectory n (traj_NN) on env at start, with the records its
// task agent retrieved.
func (w *world) traj(n int, env, task string, start time.Time, retrieved ...string) *tb {
	id := fmt.Sprintf("traj_%02d", n)
	t := &review.Trajectory{ID: id, Env: env, Task: task, Started: start, Retrieved: retrieved}
	b := &tb{w: w, t: t, db: w.cur}
	if start.Before(Migration) {
		b.db = w.pre
	}
	system := shopSystem
	if env == EnvDocs {
		system = docsSystem
	}
	user := task
	if len(retrieved) > 0 {
		var m strings.Builder
		m.WriteString(task + "\n\nMemories retrieved for this task:")
		for _, rid := range retrieved {
			fmt.Fprintf(&m, "\n[%s] %s", rid, lemmaOf(rid))
		}
		user = m.String()
	}
	t.Steps = append(t.Steps, review.Step{Role: "system", Content: system}, review.Step{Role: "user", Content: user})
	w.trajs[id] = t
	return b
}

func (b *tb) call(thought, name string, args map[string]string, result string) int {
	b.calls++
	id := fmt.Sprintf("call_%s_%d", strings.TrimPrefix(b.t.ID, "traj_"), b.calls)
	a, _ := json.Marshal(args)
	b.t.Steps = append(b.t.Steps,
		review.Step{Role: "assistant", Content: thought, ToolCalls: []review.ToolCall{{ID: id, Name: name, Arguments: string(a), Result: result}}},
		review.Step{Role: "tool", ToolCallID: id, Name: name, Content: result})
	return len(b.t.Steps) - 1
}

// sql runs q against the trajectory's database and records the call.
func (b *tb) sql(thought, q string) res {
	r := query(b.db, q)
	r.step = b.call(thought, "sql_query", map[string]string{"sql": q}, table(r))
	return r
}

// read records a files_read of path.
func (b *tb) read(thought, path string) int {
	body, ok := b.w.docs.files[path]
	if !ok {
		b.w.fail(fmt.Errorf("%s reads unknown file %s", b.t.ID, path))
	}
	return b.call(thought, "files_read", map[string]string{"path": path}, body)
}

// grep records a files_grep of pattern (a plain substring) in path.
func (b *tb) grep(thought, pattern, path string) int {
	var out []string
	for i, line := range strings.Split(strings.TrimSuffix(b.w.docs.files[path], "\n"), "\n") {
		if strings.Contains(line, pattern) {
			out = append(out, fmt.Sprintf("%s:%d: %s", path, i+1, line))
		}
	}
	result := strings.Join(out, "\n")
	if result == "" {
		result = "(no matches)"
	}
	return b.call(thought, "files_grep", map[string]string{"pattern": pattern, "path": path}, result)
}

// answer records the final assistant message.
func (b *tb) answer(text string) int {
	b.t.Steps = append(b.t.Steps, review.Step{Role: "assistant", Content: text})
	return len(b.t.Steps)
}

// end closes the trajectory with its outcome and distilled packet.
func (b *tb) end(passed bool, reward float64, notes string, p review.Packet) {
	b.t.Outcome = review.Outcome{Passed: passed, Reward: reward, Notes: notes}
	b.t.Ended = b.t.Started.Add(time.Duration(len(b.t.Steps)*17) * time.Second)
	p.Task = b.t.Task
	p.Retrieved = b.t.Retrieved
	if p.Answer == "" {
		p.Answer = b.t.Steps[len(b.t.Steps)-1].Content
	}
	b.t.Distilled = &p
}

// obs is shorthand for a distilled observation over steps from..to.
func obs(from, to int, text string) review.Observation {
	return review.Observation{Steps: review.StepRange{From: from, To: to}, Text: text}
}

func query(db *sql.DB, q string) res {
	rows, err := db.Query(q)
	if err != nil {
		return res{err: err}
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	r := res{cols: cols}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return res{err: err}
		}
		r.rows = append(r.rows, vals)
	}
	if err := rows.Err(); err != nil {
		return res{err: err}
	}
	return r
}

// table renders a result the way the task agent's sql_query tool did.
func table(r res) string {
	if r.err != nil {
		return "Error: " + r.err.Error()
	}
	var s strings.Builder
	s.WriteString(strings.Join(r.cols, " | "))
	for i, row := range r.rows {
		if i == 12 {
			fmt.Fprintf(&s, "\n… %d more rows", len(r.rows)-12)
			break
		}
		cells := make([]string, len(row))
		for j, v := range row {
			cells[j] = format(v)
		}
		s.WriteString("\n" + strings.Join(cells, " | "))
	}
	if len(r.rows) == 1 {
		s.WriteString("\n(1 row)")
	} else {
		fmt.Fprintf(&s, "\n(%d rows)", len(r.rows))
	}
	return s.String()
}

func format(v any) string {
	switch t := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(t, 10)
	case float64:
		return strconv.FormatFloat(t, 'g', 15, 64)
	case []byte:
		return string(t)
	}
	return fmt.Sprint(v)
}

// money formats cents as dollars.
func money(cents float64) string { return fmt.Sprintf("$%.2f", cents/100) }
