package formats

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
)

const goodTask = `{"id":"t1","env":"shop","text":"How many items?","grading":{"probe":"SELECT COUNT(*) FROM items_g1"}}`

func TestReadTasks(t *testing.T) {
	in := goodTask + "\n\n" +
		`{"id":"t0","env":"shop","text":"Average price?","grading":{"expect":23.5,"tolerance":0.01},"tags":["g2"],"task_family":"shop-analytics","order":-1}` + "\n" +
		`{"id":"t2","env":"shop","text":"Top brand?","grading":{"expect":"Voltra","probe":"SELECT 'Voltra'"}}`
	tasks, err := ReadTasks(strings.NewReader(in), "tasks.jsonl", func(e string) bool { return e == "shop" })
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tk := range tasks {
		ids = append(ids, tk.ID)
	}
	if strings.Join(ids, ",") != "t0,t1,t2" {
		t.Fatalf("order: got %v, want t0 (order -1) then t1, t2 in file order", ids)
	}
	if tasks[0].Grading.Expect != "23.5" || tasks[0].Grading.Tolerance != 0.01 || tasks[0].Line != 3 || tasks[0].Tags[0] != "g2" {
		t.Fatalf("t0 read as %+v", tasks[0])
	}
	if tasks[2].Grading.Expect != "Voltra" || tasks[2].Grading.Probe == "" {
		t.Fatalf("t2 read as %+v", tasks[2])
	}
	var buf bytes.Buffer
	plain := []review.Task{tasks[0].Task, tasks[1].Task, tasks[2].Task}
	if err := WriteTasks(&buf, plain); err != nil {
		t.Fatal(err)
	}
	back, err := ReadTasks(&buf, "again.jsonl", nil)
	if err != nil || len(back) != 3 || back[0].Grading.Expect != "23.5" {
		t.Fatalf("written and read back: %v, %+v", err, back)
	}
}

// Every malformed line is refused with its file, line and field.
func TestReadTasksRefuses(t *testing.T) {
	cases := []struct{ name, line, field, msg string }{
		{"unknown field", `{"id":"t9","env":"shop","text":"x","grading":{"probe":"SELECT 1"},"answer":"3"}`, "answer", "unknown field"},
		{"unknown grading field", `{"id":"t9","env":"shop","text":"x","grading":{"probe":"SELECT 1","exact":true}}`, "grading.exact", "unknown field"},
		{"missing id", `{"env":"shop","text":"x","grading":{"probe":"SELECT 1"}}`, "id", "empty"},
		{"missing env", `{"id":"t9","text":"x","grading":{"probe":"SELECT 1"}}`, "env", "empty"},
		{"blank text", `{"id":"t9","env":"shop","text":"  ","grading":{"probe":"SELECT 1"}}`, "text", "missing"},
		{"no grading", `{"id":"t9","env":"shop","text":"x"}`, "grading", "expected answer"},
		{"negative tolerance", `{"id":"t9","env":"shop","text":"x","grading":{"expect":"3","tolerance":-1}}`, "grading.tolerance", "0 or more"},
		{"expect of the wrong type", `{"id":"t9","env":"shop","text":"x","grading":{"expect":[3]}}`, "grading.expect", ""},
		{"order not a number", `{"id":"t9","env":"shop","text":"x","grading":{"expect":"3"},"order":"first"}`, "order", "wrong type"},
		{"duplicate id", `{"id":"t1","env":"shop","text":"again","grading":{"expect":"3"}}`, "id", "duplicate id t1 (first on line 1)"},
		{"unknown env", `{"id":"t9","env":"warehouse","text":"x","grading":{"expect":"3"}}`, "env", "no environment warehouse"},
		{"empty tag", `{"id":"t9","env":"shop","text":"x","grading":{"expect":"3"},"tags":[""]}`, "tags[0]", "empty tag"},
		{"not JSON", `{"id":"t9",`, "", "JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := goodTask + "\n" + c.line + "\n"
			_, err := ReadTasks(strings.NewReader(in), "set.jsonl", func(e string) bool { return e == "shop" })
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an *InputError", err)
			}
			if ie.File != "set.jsonl" || ie.Line != 2 || ie.Field != c.field || !strings.Contains(ie.Msg, c.msg) {
				t.Fatalf("got %s (line %d field %q), want line 2 field %q saying %q", err, ie.Line, ie.Field, c.field, c.msg)
			}
		})
	}
	if _, err := ReadTasks(strings.NewReader("\n\n"), "empty.jsonl", nil); err == nil || !strings.Contains(err.Error(), "empty.jsonl: file is empty") {
		t.Fatalf("an empty task set: %v", err)
	}
}
