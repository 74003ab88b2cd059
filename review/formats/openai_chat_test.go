package formats

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample/testenv"
)

var formatsDir = filepath.Join("..", "..", "testdata", "formats")

func readTrajFile(t *testing.T, path string) []review.Trajectory {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ts, err := ReadChatTrajectories(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// TestOpenAIShapes reads each accepted OpenAI form, from fixture files and
// inline, and checks ids, tasks, outcomes, steps and tool results.
func TestOpenAIShapes(t *testing.T) {
	msgs := `[{"role":"user","content":"Q?"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},{"role":"tool","tool_call_id":"c1","content":"R"},{"role":"assistant","content":"A"}]`
	type want struct {
		id, env, task string
		steps         int
		passed        bool
		reward        float64
		call, result  string // first tool call "name args", its result
	}
	for _, c := range []struct {
		name, file, in string
		want           []want
	}{
		{name: "bare array", file: "openai-bare.json", want: []want{
			{"openai-bare-1", "", "Which file holds the config?", 5, false, 0, `list {"path": "."}`, "config.toml\nmain.go"}}},
		{name: "messages object", file: "openai-messages.json", want: []want{
			{"chat-42", "repo", "Which file holds the config?", 4, true, 1, `list {"path": "."}`, "config.toml\nmain.go"}}},
		{name: "jsonl runs: traj, trajectory, history", file: "openai-runs.jsonl", want: []want{
			{"openai-runs-task7-trial2", "", "Book a flight.", 4, true, 1, `search {"to": "SEA"}`, `["HAT001"]`},
			{"openai-runs-2", "shop", "Count rows.", 2, false, 0.25, "", ""},
			{"openai-runs-3", "", "Greet back.", 2, false, 0, "", ""}}},
		{name: "array of runs", file: "openai-array.json", want: []want{
			{"openai-array-task0-trial0", "", "You want to cancel reservation AAA111.", 4, false, 0, `cancel_reservation {"reservation_id":"AAA111"}`, "Error: reservation not found"},
			{"openai-array-task0-trial1", "", "You want to cancel reservation AAA111.", 2, true, 1, "", ""}}},
		{name: "bare array on one line", in: msgs, want: []want{
			{"runs-1", "", "Q?", 4, false, 0, `f {"a":1}`, "R"}}},
		{name: "messages key", in: `{"id":7,"messages":` + msgs + `,"reward":1}`, want: []want{
			{"7", "", "Q?", 4, true, 1, `f {"a":1}`, "R"}}},
		{name: "traj key", in: `{"task_id":"t9","traj":` + msgs + `,"success":true}`, want: []want{
			{"runs-taskt9", "", "Q?", 4, true, 1, `f {"a":1}`, "R"}}},
		{name: "trajectory key", in: `{"trajectory":` + msgs + `,"success":false,"reward":0.5}`, want: []want{
			{"runs-1", "", "Q?", 4, false, 0.5, `f {"a":1}`, "R"}}},
		{name: "success without full reward", in: `{"trajectory":` + msgs + `,"success":true,"reward":0.2}`, want: []want{
			{"runs-1", "", "Q?", 4, true, 0.2, `f {"a":1}`, "R"}}},
		{name: "history key", in: `{"history":` + msgs + `,"instruction":"Do Q."}`, want: []want{
			{"runs-1", "", "Do Q.", 4, false, 0, `f {"a":1}`, "R"}}},
		{name: "array of runs on one line", in: `[{"traj":` + msgs + `},` + msgs + `]`, want: []want{
			{"runs-1", "", "Q?", 4, false, 0, `f {"a":1}`, "R"},
			{"runs-2", "", "Q?", 4, false, 0, `f {"a":1}`, "R"}}},
		{name: "pretty array of bare runs", in: "[\n" + msgs + ",\n" + msgs + "\n]\n", want: []want{
			{"runs-1", "", "Q?", 4, false, 0, `f {"a":1}`, "R"},
			{"runs-2", "", "Q?", 4, false, 0, `f {"a":1}`, "R"}}},
		{name: "mixed lines with memreview form", in: msgs + "\n" + `{"id":"own","task":"T","steps":[{"role":"user","content":"T"}],"outcome":{"passed":true,"reward":1}}`, want: []want{
			{"runs-1", "", "Q?", 4, false, 0, `f {"a":1}`, "R"},
			{"own", "", "T", 1, true, 1, "", ""}}},
		{name: "object arguments and legacy function_call", in: `[{"role":"user","content":"Q"},{"role":"assistant","function_call":{"name":"g","arguments":{"b": 2}}},{"role":"function","name":"g","content":"G"}]`, want: []want{
			{"runs-1", "", "Q", 3, false, 0, `g {"b":2}`, "G"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ts []review.Trajectory
			if c.file != "" {
				ts = readTrajFile(t, filepath.Join(formatsDir, c.file))
			} else {
				var err error
				if ts, err = ReadChatTrajectories(strings.NewReader(c.in), "dir/runs.jsonl"); err != nil {
					t.Fatal(err)
				}
			}
			if len(ts) != len(c.want) {
				t.Fatalf("got %d trajectories, want %d", len(ts), len(c.want))
			}
			for i, w := range c.want {
				tr := ts[i]
				call, result := "", ""
				for _, s := range tr.Steps {
					if len(s.ToolCalls) > 0 {
						call, result = s.ToolCalls[0].Name+" "+s.ToolCalls[0].Arguments, s.ToolCalls[0].Result
						break
					}
				}
				got := want{tr.ID, tr.Env, tr.Task, len(tr.Steps), tr.Outcome.Passed, tr.Outcome.Reward, call, result}
				if got != w {
					t.Errorf("trajectory %d:\n got %+v\nwant %+v", i, got, w)
				}
			}
		})
	}
}

func TestToolResultsMatchReusedIDs(t *testing.T) {
	in := `[{"role":"user","content":"go"},
{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"a","arguments":"1"}},{"id":"c2","function":{"name":"b","arguments":"2"}}]},
{"role":"tool","tool_call_id":"c2","content":"B"},
{"role":"tool","tool_call_id":"c1","content":"A"},
{"role":"assistant","tool_calls":[{"id":"c1","function":{"name":"c","arguments":"3"}}]},
{"role":"tool","tool_call_id":"c1","content":"C"},
{"role":"assistant","tool_calls":[{"id":"c3","function":{"name":"d","arguments":"4"}}]},
{"role":"tool","tool_call_id":"nope","content":"orphan"},
{"role":"assistant","tool_calls":[{"id":"c3","function":{"name":"e","arguments":"5"}}]},
{"role":"tool","tool_call_id":"c3","content":"E"}]`
	ts, err := ReadChatTrajectories(strings.NewReader(in), "x.json")
	if err != nil {
		t.Fatal(err)
	}
	st := ts[0].Steps
	// c3's first call never got a result; the later c3 result belongs to
	// the newest open call with that id.
	got := []string{st[1].ToolCalls[0].Result, st[1].ToolCalls[1].Result, st[4].ToolCalls[0].Result, st[6].ToolCalls[0].Result, st[7].Content, st[7].ToolCallID, st[8].ToolCalls[0].Result}
	want := []string{"A", "B", "C", "", "orphan", "nope", "E"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got results %q, want %q", got, want)
	}
	if len(st) != 10 || st[2].Role != "tool" || st[2].Content != "B" {
		t.Errorf("tool messages must stay steps: got %d steps, step 3 %+v", len(st), st[2])
	}
}

func TestReadTrajectoriesErrors(t *testing.T) {
	pretty := "[\n  {\n    \"traj\": [\n      {\"role\": \"user\", \"content\": \"hi\"},\n      {\"role\": 5, \"content\": \"x\"}\n    ]\n  }\n]\n"
	prettySyntax := "[\n  {\"traj\": [{\"role\": \"user\", \"content\": \"hi\"}]},\n  {\"traj\": [\n    {\"role\": \"user\" \"content\": \"x\"}\n  ]}\n]\n"
	for _, c := range []struct {
		name, in string
		line     int
		field    string
		msg      string
	}{
		{"empty", "", 0, "", "file is empty"},
		{"blank", "\n\n", 0, "", "file is empty"},
		{"truncated line", `{"traj":[{"role":"user","content":"a"}]}` + "\n" + `{"traj":[{"role":"user"`, 2, "", "truncated JSON"},
		{"truncated document", "[\n  {\"traj\": [\n    {\"role\": \"user\", \"content\": \"a\"}\n", 3, "", "truncated JSON"},
		{"syntax error in document", prettySyntax, 4, "", "invalid JSON"},
		{"wrong type in document", pretty, 5, "traj[1].role", "got JSON number, want string"},
		{"missing role", `{"messages":[{"content":"a"}]}`, 1, "messages[0].role", "missing role"},
		{"content wrong type", `[{"role":"user","content":5}]`, 1, "[0].content", "want a string, an array of content parts or null"},
		{"tool call name wrong type", `{"history":[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":1}}]}]}`, 1, "history[0].tool_calls[0].function.name", "want string"},
		{"arguments wrong type", `[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":5}}]}]`, 1, "[0].tool_calls[0].function.arguments", "want a JSON string or object"},
		{"reward wrong type", `{"traj":[{"role":"user","content":"a"}],"reward":"high"}`, 1, "reward", "want a number or boolean"},
		{"id wrong type", `{"traj":[{"role":"user","content":"a"}],"id":{"x":1}}`, 1, "id", "want a string or number"},
		{"messages not an array", `{"messages":"hello"}`, 1, "messages", "want an array of messages"},
		{"no messages", `{"messages":[]}`, 1, "messages", "no messages"},
		{"empty array", "[]", 1, "", "empty array"},
		{"empty pretty array", "[\n]\n", 1, "", "empty array"},
		{"not a trajectory", `{"id":"x","task":"y"}`, 1, "", "not a trajectory"},
		{"single message", `{"role":"user","content":"a"}`, 1, "", "a single message"},
		{"scalar", `"hello"` + "\n", 1, "", "want a JSON object or array"},
		{"duplicate ids", `{"task_id":1,"trial":0,"traj":[{"role":"user","content":"a"}]}` + "\n" + `{"task_id":1,"trial":0,"traj":[{"role":"user","content":"b"}]}`, 2, "task_id", `duplicate trajectory id "t-task1-trial0" (first on line 1)`},
		{"memreview unknown field", `{"id":"a","steps":[{"role":"user","contnet":"x"}]}`, 1, "steps[0].contnet", "unknown field"},
		{"memreview missing id", `{"steps":[{"role":"user"}]}`, 1, "id", "missing id"},
		{"memreview no steps", `{"id":"a","steps":[]}`, 1, "steps", "no steps"},
		{"memreview missing role", `{"id":"a","steps":[{"content":"x"}]}`, 1, "steps[0].role", "missing role"},
		{"invalid utf8 in document", "[\n{\"traj\": [{\"role\": \"user\", \"content\": \"\xff\"}]}\n]", 2, "", "invalid UTF-8"},
		{"invalid utf8 in lines", `{"traj":[{"role":"user","content":"a"}]}` + "\n\xc3\x28\n", 2, "", "invalid UTF-8"},
		{"extra data after document", "[\n" + `{"traj":[{"role":"user","content":"a"}]}` + "\n]\n]\n", 4, "", "unexpected data"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts, err := ReadChatTrajectories(strings.NewReader(c.in), "t.json")
			if ts != nil {
				t.Errorf("got %d trajectories with the error, want none", len(ts))
			}
			wantInputErr(t, err, "t.json", c.line, c.field, c.msg)
		})
	}
}

func TestReadTrajectoriesLongLine(t *testing.T) {
	line := `{"traj":[{"role":"user","content":"` + strings.Repeat("x", 2000) + `"}]}`
	_, _, err := readTrajectories(strings.NewReader("[\n"+line+"\n]"), "t.json", 1024)
	wantInputErr(t, err, "t.json", 2, "", "line is longer than 1024 bytes")
	_, _, err = readTrajectories(strings.NewReader(`{"traj":[{"role":"user","content":"a"}]}`+"\n"+line), "t.jsonl", 1024)
	wantInputErr(t, err, "t.jsonl", 2, "", "line is longer than 1024 bytes")
	if ts, _, err := readTrajectories(strings.NewReader(line), "t.jsonl", 4096); err != nil || len(ts) != 1 {
		t.Errorf("under the cap: %d trajectories, %v", len(ts), err)
	}
}

// TestTauBench imports tau-bench's airline results file as it is and
// cross-checks it against an independent generic decode of the same file.
func TestTauBench(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "realdata", "trajectories", "tau-bench-gpt-4o-airline.json")
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		testenv.Missing(t, fmt.Sprintf("real data not present (%v): to run this test put the shared realdata folder at ../shared/realdata beside the repo", err))
	}
	if err != nil {
		t.Fatal(err)
	}
	ts := readTrajFile(t, path)
	if len(ts) != 200 {
		t.Fatalf("got %d trajectories, want 200", len(ts))
	}
	passed := 0
	for _, tr := range ts {
		if tr.Outcome.Passed {
			passed++
		}
	}
	if passed != 84 {
		t.Errorf("got %d passed, want 84", passed)
	}

	var runs []map[string]any
	if err := json.Unmarshal(raw, &runs); err != nil {
		t.Fatal(err)
	}
	byID := map[string]review.Trajectory{}
	for _, tr := range ts {
		byID[tr.ID] = tr
	}
	for _, run := range runs {
		id := fmt.Sprintf("tau-bench-gpt-4o-airline-task%v-trial%v", run["task_id"], run["trial"])
		tr, ok := byID[id]
		if !ok {
			t.Fatalf("no trajectory %s", id)
		}
		if tr.Outcome.Reward != run["reward"].(float64) || len(tr.Steps) != len(run["traj"].([]any)) {
			t.Errorf("%s: reward %v, %d steps; file has %v, %d messages", id, tr.Outcome.Reward, len(tr.Steps), run["reward"], len(run["traj"].([]any)))
		}
		if run["task_id"].(float64) != 12 || run["trial"].(float64) != 0 {
			continue
		}
		// One run in detail: task, first tool call and its result.
		if want := run["info"].(map[string]any)["task"].(map[string]any)["instruction"].(string); tr.Task != want {
			t.Errorf("%s: task %q, want %q", id, tr.Task, want)
		}
		var name, args, callID, result string
		for _, m := range run["traj"].([]any) {
			m := m.(map[string]any)
			if calls, ok := m["tool_calls"].([]any); ok && len(calls) > 0 && name == "" {
				c := calls[0].(map[string]any)
				f := c["function"].(map[string]any)
				name, args, callID = f["name"].(string), f["arguments"].(string), c["id"].(string)
			} else if m["role"] == "tool" && name != "" && m["tool_call_id"] == callID {
				result = m["content"].(string)
				break
			}
		}
		if name == "" || result == "" {
			t.Fatalf("%s: the file's run has no tool call with a result", id)
		}
		var got *review.ToolCall
		for i := range tr.Steps {
			if len(tr.Steps[i].ToolCalls) > 0 {
				got = &tr.Steps[i].ToolCalls[0]
				break
			}
		}
		if got == nil || got.Name != name || got.Arguments != args || got.ID != callID || got.Result != result {
			t.Errorf("%s: first tool call %+v, want %s(%s) id %s → %.60q", id, got, name, args, callID, result)
		}
	}
}
