package sample

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/memreview/memreview/review"
)

func synthTrajID(j int) string { return fmt.Sprintf("traj_%06d", j+1) }

// synthTrajectory is trajectory j of the synthetic bank: a task on one
// environment, the records its agent retrieved (from the first nrec), two
// to five tool calls with their results, an answer, an outcome and a
// distilled packet, in the shape of the sample world's trajectories.
func synthTrajectory(seed int64, j, nrec int) review.Trajectory {
	r := synthRNG(seed, 2, j)
	e := pickEnv(r)
	suffix, gwords := e.group(r)
	tbl, tbl2 := e.table(r, suffix), e.table(r, suffix)
	if e.files {
		tbl = e.tables[r.IntN(2)] // the CSV exports
	}
	col, col2, key := pick(r, e.cols), pick(r, e.cols), pick(r, e.keys)
	noun := pick(r, e.nouns)
	v := 1 + r.IntN(50)
	task := pick(r, []string{
		fmt.Sprintf("How many %s in %s (%s) have %s of at least %d?", noun, gwords, suffix, col, v),
		fmt.Sprintf("What is the average %s of %s in %s (%s)?", col, noun, gwords, suffix),
		fmt.Sprintf("Which %s has the highest %s among %s with %s set?", key, col, noun, col2),
	})
	if e.files {
		task = fmt.Sprintf("What was %s at the %s site in %s-%02d?", noun, gwords, pick(r, synthYears), 1+r.IntN(12))
	}
	start := synthStart.Add(time.Duration(j) * 37 * time.Minute)
	t := review.Trajectory{ID: synthTrajID(j), Env: e.name, Task: task, Started: start}
	user := task
	if nrec > 0 {
		var m strings.Builder
		m.WriteString(task + "\n\nMemories retrieved for this task:")
		for range r.IntN(4) {
			i := r.IntN(nrec)
			t.Retrieved = append(t.Retrieved, synthID(i))
			fmt.Fprintf(&m, "\n[%s] %s", synthID(i), synthRecordAt(seed, i, 0).Lemma)
		}
		if len(t.Retrieved) > 0 {
			user = m.String()
		}
	}
	system := fmt.Sprintf("You are a data agent answering questions about the %s database (SQLite). Use the sql_query tool, one statement per call; it is read-only.", e.name)
	switch {
	case e.name == EnvShop:
		system = shopSystem
	case e.files:
		system = docsSystem
	}
	t.Steps = []review.Step{{Role: "system", Content: system}, {Role: "user", Content: user}}
	call := func(thought, name string, args map[string]string, result string) {
		id := fmt.Sprintf("call_%d_%d", j+1, len(t.Steps))
		a, _ := json.Marshal(args)
		t.Steps = append(t.Steps,
			review.Step{Role: "assistant", Content: thought, ToolCalls: []review.ToolCall{{ID: id, Name: name, Arguments: string(a), Result: result}}},
			review.Step{Role: "tool", ToolCallID: id, Name: name, Content: result})
	}
	n := float64(r.IntN(100000)) / 100
	failed := r.IntN(10) < 3
	if e.files {
		call("Starting with the folder's README.", "files_read", map[string]string{"path": "README.md"},
			fmt.Sprintf("# %s workbooks\n\nMonthly figures per site, one CSV per measure; see notes/methodology.md.", e.name))
		call(fmt.Sprintf("Looking for %s in %s:", col, tbl), "files_grep", map[string]string{"pattern": col, "path": tbl},
			fmt.Sprintf("%s:%d: %s,%s,%.2f", tbl, 2+r.IntN(60), col, suffix, n))
	} else {
		call("Reading the table's definition first.", "sql_query", map[string]string{"sql": fmt.Sprintf("SELECT sql FROM sqlite_master WHERE name = '%s'", tbl)},
			fmt.Sprintf("sql\nCREATE TABLE %s (%s INTEGER PRIMARY KEY, %s, %s)\n(1 row)", tbl, key, col, col2))
		if failed && r.IntN(2) == 0 {
			call("Joining as the memory says:", "sql_query", map[string]string{"sql": fmt.Sprintf("SELECT COUNT(*) FROM %s a JOIN %s b ON a.%s = b.%s", tbl, tbl2, key, key)},
				fmt.Sprintf("Error: %s: b.%s", pick(r, synthErrors), key))
		}
		q := fmt.Sprintf("SELECT ROUND(AVG(%s), 2) FROM %s WHERE %s >= %d", col, tbl, col2, v)
		call("One aggregate query:", "sql_query", map[string]string{"sql": q}, fmt.Sprintf("ROUND(AVG(%s), 2)\n%.2f\n(1 row)", col, n))
	}
	answer := fmt.Sprintf("%.2f. Computed from %s.%s for %s.", n, tbl, col, gwords)
	t.Steps = append(t.Steps, review.Step{Role: "assistant", Content: answer})
	t.Outcome = review.Outcome{Passed: !failed, Reward: 1}
	if failed {
		t.Outcome.Reward = 0
		t.Outcome.Notes = fmt.Sprintf("expected %.2f: %s", n*1.1, pick(r, []string{"the unit was not converted", "a stale column was used", "the filter was dropped", "the wrong group table was read"}))
	}
	t.Ended = start.Add(time.Duration(len(t.Steps)*17) * time.Second)
	t.Distilled = &review.Packet{Task: task, Retrieved: t.Retrieved, Answer: answer,
		Observations: []review.Observation{obs(3, 4, fmt.Sprintf("%s has %s and %s, keyed by %s.", tbl, col, col2, key))},
		Procedures:   []string{fmt.Sprintf("Read %s's definition", tbl), fmt.Sprintf("Aggregate %s in one query", col)}}
	if failed {
		t.Distilled.Assumptions = []string{fmt.Sprintf("%s still holds %s", tbl, col)}
	}
	return t
}
