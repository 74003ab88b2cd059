package formats

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNoKnownShapeNamesEveryFormatTried(t *testing.T) {
	_, _, err := ReadTrajectories(NewInput("odd.json", []byte(`{"hello": "world"}`)), nil)
	var ie *InputError
	if !errors.As(err, &ie) || ie.File != "odd.json" {
		t.Fatalf("err = %v", err)
	}
	for _, f := range Formats(Trajectories) {
		if !strings.Contains(err.Error(), f.Name+": ") {
			t.Errorf("the paragraph does not say why %s did not fit: %v", f.Name, err)
		}
	}
	if strings.Count(err.Error(), "\n") > 0 || !strings.Contains(err.Error(), "keys hello") {
		t.Errorf("want one paragraph naming the keys seen: %v", err)
	}
	_, _, err = ReadMemories(NewInput("odd.json", []byte(`not json`)), nil, "")
	if err == nil || !strings.Contains(err.Error(), "mem0: ") || !strings.Contains(err.Error(), "letta: ") || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("memories: %v", err)
	}
}

func TestBadInputNamesFileLineAndField(t *testing.T) {
	for _, c := range []struct {
		name, format, data, want string
	}{
		{"swe role", "swe-agent", "{\"info\": {},\n \"history\": [\n {\"role\": \"user\", \"content\": \"x\"},\n {\"content\": \"no role\"}]}", `b.traj:4: field "history[1].role": missing role`},
		{"atif source", "atif", "{\"schema_version\": \"1\",\n\"steps\": [\n{\"step_id\": 1, \"message\": \"hi\"}]}", `b.traj:3: field "steps[0].source": missing source`},
		{"openhands time", "openhands", "[{\"id\": 0, \"source\": \"user\", \"action\": \"message\", \"args\": {}},\n{\"id\": 1, \"source\": \"agent\", \"action\": \"run\", \"timestamp\": \"yesterday\"}]", `b.traj:2: field "[1].timestamp": not a time: yesterday`},
		{"otlp spans", "otel", "{\"resourceSpans\": [{\"scopeSpans\": [{\"spans\": 3}]}]}", `field "resourceSpans[0].scopeSpans[0].spans": want an array of spans`},
		{"langfuse obs", "langfuse", "{\"trace\": {},\n\"observations\": \"none\"}", `b.traj:2: field "observations": want an array`},
		{"mem0 memory", "mem0", "[{\"memory\": \"a\"},\n{\"memory\": {\"x\": 1}}]", `b.traj:2: field "[1].memory": want a string`},
		{"mcp name", "mcp-memory", "{\"type\": \"entity\", \"name\": \"A\"}\n{\"type\": \"entity\", \"name\": \"\", \"observations\": []}", `b.traj:2: field "name": an entity needs a name`},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, _ := Lookup(c.format)
			in := NewInput("b.traj", []byte(c.data))
			var err error
			if f.Kind == Memories {
				_, _, err = ReadMemories(in, f, "")
			} else {
				_, _, err = ReadTrajectories(in, f)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v\nwant %s", err, c.want)
			}
		})
	}
}

func TestTimestampEncodings(t *testing.T) {
	for in, want := range map[string]string{
		`"2024-07-20T10:00:00-07:00"`:  "2024-07-20T17:00:00Z",
		`1721500000`:                   "2024-07-20T18:26:40Z",
		`1721500000123`:                "2024-07-20T18:26:40.123Z",
		`"1718000001000000000"`:        "2024-06-10T06:13:21Z",
		`[1721500000, 500000000]`:      "2024-07-20T18:26:40.5Z",
		`"2025-01-27T22:44:56.900854"`: "2025-01-27T22:44:56.900854Z",
	} {
		got, ok := parseTime([]byte(in))
		if !ok || got.Format("2006-01-02T15:04:05.999999999Z07:00") != want {
			t.Errorf("parseTime(%s) = %v %v, want %s", in, got, ok, want)
		}
	}
	for _, in := range []string{`"yesterday"`, `"10000-01-01T00:00:00Z"`, `-5`, `[1]`, `{}`} {
		if got, ok := parseTime([]byte(in)); ok {
			t.Errorf("parseTime(%s) = %v, want not a time", in, got)
		}
	}
}

// seeds gives the fuzz corpus: the fixtures and, when present, the real
// samples.
func seeds(f *testing.F, patterns ...string) {
	for _, p := range patterns {
		for _, dir := range []string{"testdata", realdata + "/trajectories", realdata + "/trajectories/*", realdata + "/memory/*"} {
			files, _ := filepath.Glob(filepath.Join(dir, p))
			for _, file := range files {
				if data, err := os.ReadFile(file); err == nil && len(data) < 200<<10 {
					f.Add(data)
				}
			}
		}
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`[{"role":"user"}]`))
}

func fuzzFormat(f *testing.F, name string, patterns ...string) {
	seeds(f, patterns...)
	format, _ := Lookup(name)
	f.Fuzz(func(t *testing.T, data []byte) {
		in := NewInput("fuzz", data)
		if format.Kind == Memories {
			ms, _, err := ReadMemories(in, format, "")
			if err == nil && len(ms) == 0 {
				t.Fatal("no error and no memories")
			}
			for _, m := range ms {
				if m.Proposal.Record == nil || strings.TrimSpace(m.Proposal.Record.Lemma) == "" {
					t.Fatal("a memory with no text")
				}
			}
			Detect(NewInput("fuzz", data), Memories)
			return
		}
		ts, rep, err := ReadTrajectories(in, format)
		if err == nil && rep.Runs != len(ts) {
			t.Fatal("report disagrees with the runs")
		}
		for _, tr := range ts {
			if tr.ID == "" || len(tr.Steps) == 0 {
				t.Fatalf("a run with id %q and %d steps", tr.ID, len(tr.Steps))
			}
		}
		if err == nil {
			// The runs read export (memreview's JSON Lines) as a file that
			// imports as the same runs.
			var once, twice bytes.Buffer
			if err := WriteJSONL(&once, ts); err != nil {
				t.Fatal(err)
			}
			back, _, err := ReadTrajectories(NewInput("export.jsonl", once.Bytes()), nil)
			if err != nil {
				t.Fatalf("the runs read do not import once exported: %v\n%s", err, once.Bytes())
			}
			if err := WriteJSONL(&twice, back); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(once.Bytes(), twice.Bytes()) {
				t.Fatalf("exported, imported and exported again, the runs differ:\n%s\n%s", once.Bytes(), twice.Bytes())
			}
		}
		Detect(NewInput("fuzz", data), Trajectories)
	})
}

func FuzzSWEAgent(f *testing.F)  { fuzzFormat(f, "swe-agent", "*.traj") }
func FuzzOTel(f *testing.F)      { fuzzFormat(f, "otel", "*otlp*", "*openinference*", "genai-*") }
func FuzzLangfuse(f *testing.F)  { fuzzFormat(f, "langfuse", "*langfuse*") }
func FuzzInspect(f *testing.F)   { fuzzFormat(f, "inspect-ai", "*inspect*", "*.eval", "log_*") }
func FuzzOpenHands(f *testing.F) { fuzzFormat(f, "openhands", "*openhands*", "basic.json") }
func FuzzATIF(f *testing.F)      { fuzzFormat(f, "atif", "atif*") }
func FuzzOpenAI(f *testing.F)    { fuzzFormat(f, "openai", "tau-*") }
func FuzzMem0(f *testing.F)      { fuzzFormat(f, "mem0", "mem0*") }
func FuzzMCPMemory(f *testing.F) { fuzzFormat(f, "mcp-memory", "*.jsonl") }
func FuzzLetta(f *testing.F)     { fuzzFormat(f, "letta", "*.af") }
func FuzzAgentsMD(f *testing.F)  { f.Add([]byte(agentsMD)); fuzzFormat(f, "agents-md", "*.md", "*.mdc") }

// Ids taken from a field are placed (file, line, field) for the messages
// about duplicates (issue 11 item 14).
func TestIDsArePlaced(t *testing.T) {
	for file, want := range map[string]Place{
		"atif.json":     {Line: 3, Field: "session_id"},
		"langfuse.json": {Line: 1, Field: "trace.id"},
		"inspect.json":  {Line: 4, Field: "samples[0].id"},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		_, rep, err := ReadTrajectories(NewInput(file, data), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Places) == 0 || rep.Places[0] != want {
			t.Errorf("%s: places %+v, want first %+v", file, rep.Places, want)
		}
	}
}

// A hostile nest of attributes costs a bounded number of passes, not one
// per level (no hang): flatten stops at maxFlatten levels.
func TestDeepNestingIsBounded(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 5000) + `1` + strings.Repeat(`}`, 5000)
	out := map[string]rawValue{}
	flatten(out, "gen_ai.x", []byte(deep))
	if len(out) != maxFlatten+1 {
		t.Fatalf("flatten kept %d keys, want %d (one per level up to the cap)", len(out), maxFlatten+1)
	}
	data := []byte(`{"gen_ai.input.messages": ` + deep + `}`)
	if _, _, err := ReadTrajectories(NewInput("deep.json", data), nil); err == nil {
		t.Fatal("a span with no messages imported")
	}
}
