package formats

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
)

// Issue 23 item 23: what the store would refuse is refused by the reader,
// with the file, line and field, so that --dry-run and import agree. One
// crafted file per format, and the exact error.
func TestReadersRefuseWhatTheStoreWould(t *testing.T) {
	long := strings.Repeat("u", review.MaxTextBytes+1)
	for _, c := range []struct {
		name, file, data, want string
	}{
		{"atif session_id", "a.json", "{\n \"schema_version\": \"ATIF-v1.2\",\n \"session_id\": \"../../etc\",\n \"steps\": [{\"step_id\": 1, \"source\": \"user\", \"message\": \"hi\"}]\n}",
			`a.json:3: field "session_id": run 1: the id ../../etc holds a path separator`},
		{"langfuse trace.id", "l.json", "{\"trace\": {\n  \"id\": \"my trace\"},\n \"observations\": [{\"id\": \"g\", \"type\": \"GENERATION\", \"input\": \"hi\", \"output\": \"yo\"}]}",
			`l.json:2: field "trace.id": the id my trace holds white space or control characters`},
		{"langfuse observation traceId", "l.json", "{\"trace\": {},\n \"observations\": [\n  {\"id\": \"g\", \"traceId\": \"a/b\", \"type\": \"GENERATION\", \"input\": \"hi\", \"output\": \"yo\"}]}",
			`l.json:3: field "observations[0].traceId": the id a/b holds a path separator`},
		{"otlp conversation id", "o.json", "{\"resourceSpans\": [{\"scopeSpans\": [{\"spans\": [\n {\"traceId\": \"t1\", \"spanId\": \"a\", \"name\": \"chat\", \"attributes\": [\n  {\"key\": \"gen_ai.system\", \"value\": {\"stringValue\": \"openai\"}},\n  {\"key\": \"gen_ai.conversation.id\", \"value\": {\"stringValue\": \"..\"}},\n  {\"key\": \"gen_ai.prompt\", \"value\": {\"stringValue\": \"hi\"}}]}]}]}]}",
			`o.json:4: field "resourceSpans[0].scopeSpans[0].spans[0].attributes[1].value": the id ".." is not a name`},
		{"console trace id", "c.jsonl", "{\"name\": \"llm\", \"context\": {\"trace_id\": \"0xa\", \"span_id\": \"0x1\"}, \"attributes\": {\"gen_ai.prompt\": \"hi\"}}\n{\"name\": \"llm\", \"context\": {\"trace_id\": \"" + strings.Repeat("f", 201) + "\", \"span_id\": \"0x2\"}, \"attributes\": {\"gen_ai.prompt\": \"hi\"}}",
			`c.jsonl:2: field "context.trace_id": the id is 201 bytes long, over the 200 an id may hold`},
		{"attribute map session.id", "m.json", "[{\"gen_ai.prompt\": \"a\"},\n {\"gen_ai.prompt\": \"b\", \"session.id\": \"x\\\\y\"}]",
			`m.json:2: field "[1][session.id]": the id x\y holds a path separator`},
		{"inspect sample id", "i.json", "{\"eval\": {\"model\": \"m\"},\n \"samples\": [\n  {\"id\": \"task/7\", \"epoch\": 1, \"messages\": [{\"role\": \"user\", \"content\": \"q\"}]}]}",
			`i.json:3: field "samples[0].id": run 1: the id i-task/7-epoch1 holds a path separator`},
		{"inspect samples sharing an id and epoch", "i.json", "{\"eval\": {\"model\": \"m\"},\n \"samples\": [\n  {\"id\": 7, \"epoch\": 1, \"messages\": [{\"role\": \"user\", \"content\": \"q\"}]},\n  {\"id\": 7, \"messages\": [{\"role\": \"user\", \"content\": \"r\"}]}]}",
			`i.json:4: field "samples[1].id": run 2: duplicate run id i-7-epoch1, the id of run 1 (samples[0].id) too`},
		{"inspect sample ids 7 and \"7\"", "s.json", "{\"eval\": {},\n \"samples\": [\n  {\"id\": 7, \"epoch\": 2, \"messages\": [{\"role\": \"user\", \"content\": \"q\"}]},\n  {\"id\": \"7\", \"epoch\": 2, \"messages\": [{\"role\": \"user\", \"content\": \"q\"}]}]}",
			`s.json:4: field "samples[1].id": run 2: duplicate run id s-7-epoch2, the id of run 1 (samples[0].id) too`},
		{"openai id", "r.jsonl", "{\"id\": \"ok\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}\n{\"id\": \"a b\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
			`r.jsonl:2: field "id": the id a b holds white space or control characters`},
		{"mem0 user_id", "m0.json", "[{\"memory\": \"likes tea\"},\n {\"memory\": \"likes coffee\",\n  \"user_id\": \"" + long + "\"}]",
			`m0.json:3: field "[1].user_id": the tag user:uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu… it becomes is 65542 bytes, over the 65536 a text field may hold`},
		{"mem0 memory", "m0.jsonl", "{\"memory\": \"ok\"}\n{\"memory\": \"" + long + "\", \"id\": \"m2\"}",
			`m0.jsonl:2: field "memory": the memory's text is 65537 bytes, over the 65536 a text field may hold`},
		{"mem0 categories", "m0.json", "{\"results\": [{\"memory\": \"ok\", \"categories\": [" + strings.Repeat(`"`+strings.Repeat("c", 60<<10)+`",`, 18) + "\"x\"]}]}",
			`m0.json:1: field "results[0].categories": the record is 1106160 bytes as JSON, over the 1048576 a record may hold (shorten its text or drop large check results)`},
		{"mcp entity name", "g.jsonl", "{\"type\": \"entity\", \"name\": \"A\", \"entityType\": \"T\", \"observations\": [\"x\"]}\n{\"type\": \"entity\", \"name\": \"" + long + "\", \"entityType\": \"T\", \"observations\": [\"y\"]}",
			`g.jsonl:2: field "name": the tag entity:uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu… it becomes is 65544 bytes, over the 65536 a text field may hold`},
		{"mcp observation", "g.json", "{\"entities\": [\n {\"name\": \"A\", \"entityType\": \"T\",\n  \"observations\": [\"short\", \"" + strings.Repeat("o", review.MaxTextBytes-4) + "\"]}],\n \"relations\": []}",
			`g.json:3: field "entities[0].observations[1]": the memory's text is 65539 bytes, over the 65536 a text field may hold`},
		{"mcp relation", "g.jsonl", "{\"type\": \"entity\", \"name\": \"A\", \"observations\": [\"x\"]}\n{\"type\": \"relation\", \"from\": \"A\", \"to\": \"" + long + "\", \"relationType\": \"knows\"}",
			`g.jsonl:2: field "to": the tag entity:uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu… it becomes is 65544 bytes, over the 65536 a text field may hold`},
		{"letta label", "a.af", "{\"agents\": [{\"name\": \"helper\", \"block_ids\": [\"b0\"]}],\n \"blocks\": [\n  {\"id\": \"b0\",\n   \"label\": \"" + long + "\", \"value\": \"Sam is a nurse.\"}]}",
			`a.af:4: field "blocks[0].label": the tag letta:uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu… it becomes is 65543 bytes, over the 65536 a text field may hold`},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := NewInput(c.file, []byte(c.data))
			f, err := Detect(in, Trajectories)
			if err == nil {
				_, _, err = ReadTrajectories(in, f)
			} else {
				_, _, err = ReadMemories(NewInput(c.file, []byte(c.data)), nil, "")
			}
			if err == nil || err.Error() != c.want {
				t.Fatalf("err = %v\nwant  %s", err, c.want)
			}
		})
	}
}

// Ids made from a file name are made safe: a file may be called anything.
func TestFileNameIDsAreSafe(t *testing.T) {
	swe := `{"info": {}, "history": [{"role": "user", "content": "fix"}]}`
	oh := `[{"id": 0, "source": "user", "action": "message", "args": {"content": "go"}}]`
	for file, data := range map[string]string{"my run (copy).traj": swe, "dir/evil\x1b[31m name.json": oh, strings.Repeat("n", 300) + ".traj": swe} {
		ts, _, err := ReadTrajectories(NewInput(file, []byte(data)), nil)
		if err != nil {
			t.Fatalf("%q: %v", file, err)
		}
		if err := review.CheckID(ts[0].ID); err != nil {
			t.Errorf("%q: id %q: %v", file, ts[0].ID, err)
		}
	}
	if got := fileID("my run", "-1"); got != "my-run-1" {
		t.Errorf("fileID = %q", got)
	}
}

// A trajectory past review.MaxTrajectoryBytes as JSON is refused with its
// file and line: measured from its text when that alone is too long, else
// encoded (here against a small limit, to stay fast).
func TestTrajectorySizeIsCapped(t *testing.T) {
	tr := review.Trajectory{ID: "big", Steps: []review.Step{{Role: "user", Content: strings.Repeat("x", review.MaxTrajectoryBytes)}}}
	err := checkSize("t.jsonl", 3, &tr)
	want := fmt.Sprintf("t.jsonl:3: run big holds %d bytes of text, more than the %d a trajectory may hold as JSON", review.MaxTrajectoryBytes+49, review.MaxTrajectoryBytes)
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
	// 1,000 bytes of text that JSON escapes to 6,000 (< is \u003c).
	tr.Steps = []review.Step{{Role: "tool", Content: strings.Repeat("<", 1000)}}
	err = checkSizeUpTo("t.jsonl", 3, &tr, 5000)
	if want := "t.jsonl:3: run big is 6163 bytes as JSON, over the 5000 a trajectory may hold"; err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
	if err := checkSizeUpTo("t.jsonl", 3, &tr, 6163); err != nil {
		t.Errorf("at the limit: %v", err)
	}
}
