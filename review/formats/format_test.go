package formats

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

// wantInputErr fails unless err is an *InputError at file:line, field,
// with msg in its message.
func wantInputErr(t *testing.T, err error, file string, line int, field, msg string) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("got error %v (%T), want *InputError", err, err)
	}
	if ie.File != file || ie.Line != line || ie.Field != field {
		t.Errorf("got %s:%d field %q (%v), want %s:%d field %q", ie.File, ie.Line, ie.Field, err, file, line, field)
	}
	if !strings.Contains(ie.Msg, msg) {
		t.Errorf("got message %q, want it to contain %q", ie.Msg, msg)
	}
}

func TestInputErrorString(t *testing.T) {
	for _, c := range []struct {
		e    InputError
		want string
	}{
		{InputError{"records.jsonl", 12, "category", `unknown category "facts"`}, `records.jsonl:12: field "category": unknown category "facts"`},
		{InputError{"r.jsonl", 3, "", "truncated JSON"}, `r.jsonl:3: truncated JSON`},
		{InputError{"r.jsonl", 0, "", "file is empty"}, `r.jsonl: file is empty`},
		{InputError{"", 2, "id", "missing id"}, `<input>:2: field "id": missing id`},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

const goodRec = `{"id":"m1","lemma":"A lemma.","category":"fact","confidence":0.5}`

func TestReadRecordsErrors(t *testing.T) {
	for _, c := range []struct {
		name, in string
		line     int
		field    string
		msg      string
	}{
		{"truncated", goodRec + "\n" + `{"id":"m2","lemma":"x",`, 2, "", "truncated JSON"},
		{"syntax", goodRec + "\n" + `{"id":"m2" "lemma":"x"}`, 2, "", "invalid JSON"},
		{"wrong type", goodRec + "\n\n" + `{"id":"m2","lemma":"x","category":"fact","scope":{"tags":"sql"}}`, 3, "scope.tags", "got JSON string, want array"},
		{"wrong type in array", `{"id":"m2","lemma":"x","category":"fact","scope":{"tags":["a",3]}}`, 1, "scope.tags[1]", "got JSON number, want string"},
		{"wrong type nested", `{"id":"m2","lemma":"x","category":"fact","checks":[{"env":"e","input":"i","expect":{"kind":"sql","duration_ms":"fast"}}]}`, 1, "checks[0].expect.duration_ms", "want number"},
		{"unknown nested field", `{"id":"m2","lemma":"x","category":"fact","provenance":{"trajectory":"t","step":{"from":1,"to":2}}}`, 1, "provenance.step", "unknown field"},
		{"wrong type number", `{"id":"m2","lemma":"x","category":"fact","confidence":"high"}`, 1, "confidence", "want number"},
		{"unknown field", `{"id":"m2","lemma":"x","category":"fact","lemmma":"y"}`, 1, "lemmma", "unknown field"},
		{"unknown category", goodRec + "\n" + `{"id":"m2","lemma":"x","category":"facts"}`, 2, "category", `unknown category "facts" (want one of fact, procedure,`},
		{"missing category", `{"id":"m2","lemma":"x"}`, 1, "category", "missing category"},
		{"missing lemma", `{"id":"m2","lemma":"  ","category":"fact"}`, 1, "lemma", "missing lemma"},
		{"missing id", `{"lemma":"x","category":"fact"}`, 1, "id", "missing id"},
		{"duplicate id", goodRec + "\n" + `{"id":"m2","lemma":"x","category":"fact"}` + "\n" + goodRec, 3, "id", `duplicate id "m1" (first on line 1)`},
		{"confidence high", `{"id":"m2","lemma":"x","category":"fact","confidence":1.5}`, 1, "confidence", "outside 0..1"},
		{"confidence low", `{"id":"m2","lemma":"x","category":"fact","confidence":-0.1}`, 1, "confidence", "outside 0..1"},
		{"bad status", `{"id":"m2","lemma":"x","category":"fact","status":"gone"}`, 1, "status", `unknown status "gone"`},
		{"bad step range", `{"id":"m2","lemma":"x","category":"fact","provenance":{"steps":{"from":5,"to":2}}}`, 1, "provenance.steps", "bad step range"},
		{"check without env", `{"id":"m2","lemma":"x","category":"fact","checks":[{"env":"","input":"SELECT 1","expect":{"env":"","kind":"sql","input":"SELECT 1","duration_ms":0}}]}`, 1, "checks[0].env", "missing env"},
		{"invalid utf8", goodRec + "\n" + "{\"id\":\"m2\",\"lemma\":\"caf\xe9\",\"category\":\"fact\"}", 2, "", "invalid UTF-8 at byte 24"},
		{"extra data", goodRec + " " + goodRec, 1, "", "extra data"},
		{"not an object", `["m1"]`, 1, "", "want object"},
		{"empty", "", 0, "", "file is empty"},
		{"blank only", "\n  \n\t\n", 0, "", "file is empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			recs, err := ReadRecords(strings.NewReader(c.in), "records.jsonl")
			if recs != nil {
				t.Errorf("got %d records with the error, want none", len(recs))
			}
			wantInputErr(t, err, "records.jsonl", c.line, c.field, c.msg)
		})
	}
}

func TestReadRecordsDefaultsAndBlankLines(t *testing.T) {
	in := "\xef\xbb\xbf\n" + goodRec + "\r\n\n   \n" + `{"id":"m2","lemma":"B","category":"warning","status":"retired","version":3}` + "\n"
	recs, err := ReadRecords(strings.NewReader(in), "r.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("got %d records, want 2", len(recs))
	}
	if recs[0].Status != review.Active || recs[0].Version != 0 {
		t.Errorf("record 1: status %q version %d, want active and 0 (the store sets versions)", recs[0].Status, recs[0].Version)
	}
	if recs[1].Status != review.Retired || recs[1].Version != 3 || recs[1].Category != review.Warning {
		t.Errorf("record 2: got %+v", recs[1])
	}
}

func TestReadRecordsLongLine(t *testing.T) {
	long := `{"id":"m2","lemma":"` + strings.Repeat("x", review.MaxLineBytes) + `","category":"fact"}`
	_, err := ReadRecords(strings.NewReader(goodRec+"\n"+long+"\n"), "big.jsonl")
	wantInputErr(t, err, "big.jsonl", 2, "", "line is longer than 16 MiB")
	// A line under the cap is read, and its lemma held to the field limit.
	near := `{"id":"m2","lemma":"` + strings.Repeat("x", 2*review.MaxTextBytes) + `","category":"fact"}`
	_, err = ReadRecords(strings.NewReader(goodRec+"\n"+near), "big.jsonl")
	wantInputErr(t, err, "big.jsonl", 2, "lemma", "over the 65536 a text field may hold")
	ok := `{"id":"m2","lemma":"` + strings.Repeat("x", review.MaxTextBytes) + `","category":"fact"}`
	recs, err := ReadRecords(strings.NewReader(goodRec+"\n"+ok), "big.jsonl")
	if err != nil || len(recs) != 2 || len(recs[1].Lemma) != review.MaxTextBytes {
		t.Fatalf("lemma at the field limit: got %d records, err %v", len(recs), err)
	}
}

const goodRecObj = `{"lemma":"A lemma.","category":"fact"}`

func TestReadProposalsErrors(t *testing.T) {
	for _, c := range []struct {
		name, in string
		line     int
		field    string
		msg      string
	}{
		{"unknown op", `{"op":"remove","targets":[{"id":"m1","version":1}]}`, 1, "op", `unknown op "remove" (want one of create, update`},
		{"missing op", `{"rationale":"x"}`, 1, "op", "missing op"},
		{"create without record", `{"op":"skip"}` + "\n" + `{"op":"create"}`, 2, "record", "op create needs a record"},
		{"create missing lemma", `{"op":"create","record":{"category":"fact"}}`, 1, "record.lemma", "missing lemma"},
		{"create bad category", `{"op":"create","record":{"lemma":"x","category":"tips"}}`, 1, "record.category", `unknown category "tips"`},
		{"record bad confidence", `{"op":"create","record":{"lemma":"x","category":"fact","confidence":2}}`, 1, "record.confidence", "outside 0..1"},
		{"record unknown field", `{"op":"create","record":{"lemma":"x","category":"fact","lemmma":"y"}}`, 1, "record.lemmma", "unknown field"},
		{"update without targets", `{"op":"update","record":` + goodRecObj + `}`, 1, "targets", "op update needs at least one target"},
		{"narrow without record", `{"op":"narrow","targets":[{"id":"m1","version":1}]}`, 1, "record", "op narrow needs a record"},
		{"merge without targets", `{"op":"merge","targets":[],"record":` + goodRecObj + `}`, 1, "targets", "op merge needs at least one target"},
		{"delete without targets", `{"op":"delete"}`, 1, "targets", "op delete needs at least one target"},
		// A second target is refused, never ignored (issue 23 item 24).
		{"update with two targets", `{"op":"update","targets":[{"id":"m1"},{"id":"m2"}],"record":` + goodRecObj + `}`, 1, "targets", "update takes exactly one target record, not 2"},
		{"narrow with two targets", `{"op":"skip"}` + "\n" + `{"op":"narrow","targets":[{"id":"m1"},{"id":"m2"}],"record":` + goodRecObj + `}`, 2, "targets", "narrow takes exactly one target record, not 2"},
		{"create with a target", `{"op":"create","targets":[{"id":"m1"}],"record":` + goodRecObj + `}`, 1, "targets", "a create names no targets"},
		{"target without id", `{"op":"delete","targets":[{"id":"m1"},{"version":2}]}`, 1, "targets[1].id", "missing id"},
		{"target twice", `{"op":"merge","targets":[{"id":"m1"},{"id":"m1"}],"record":` + goodRecObj + `}`, 1, "targets[1].id", "targeted twice"},
		{"target wrong type", `{"op":"delete","targets":[{"id":7}]}`, 1, "targets[0].id", "got JSON number, want string"},
		{"unknown field", `{"op":"skip","reason":"x"}`, 1, "reason", "unknown field"},
		{"bad status", `{"op":"skip","status":"open"}`, 1, "status", `unknown status "open"`},
		{"bad evidence", `{"op":"skip","evidence":{"steps":[{"from":0,"to":1}]}}`, 1, "evidence.steps[0]", "bad step range"},
		{"duplicate id", `{"id":"p1","op":"skip"}` + "\n" + `{"id":"p1","op":"skip"}`, 2, "id", `duplicate id "p1"`},
		{"truncated", `{"op":"skip"`, 1, "", "truncated JSON"},
		{"empty", "\n", 0, "", "file is empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ps, lines, err := ReadProposals(strings.NewReader(c.in), "proposals.jsonl")
			if ps != nil || lines != nil {
				t.Errorf("got %d proposals with the error, want none", len(ps))
			}
			wantInputErr(t, err, "proposals.jsonl", c.line, c.field, c.msg)
		})
	}
}

func TestReadProposalsLinesAndTargets(t *testing.T) {
	in := `{"op":"skip"}` + "\n\n" +
		`{"op":"create","record":` + goodRecObj + `}` + "\n" +
		`{"op":"merge","targets":[{"id":"m1","version":1},{"id":"m9","version":0}],"record":` + goodRecObj + `}` + "\n"
	ps, lines, err := ReadProposals(strings.NewReader(in), "p.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(lines, []int{1, 3, 4}) {
		t.Errorf("got lines %v, want [1 3 4]", lines)
	}
	exists := func(id string) bool { return id == "m1" }
	wantInputErr(t, CheckProposalTargets("p.jsonl", ps, lines, exists), "p.jsonl", 4, "targets[1].id", `no record "m9" in the bank`)
	if err := CheckProposalTargets("p.jsonl", ps[:2], lines, exists); err != nil {
		t.Errorf("proposals without unknown targets: %v", err)
	}
	all := func(string) bool { return true }
	if err := CheckProposalTargets("p.jsonl", ps, lines, all); err != nil {
		t.Errorf("all targets exist: %v", err)
	}
	// The shape is checked for proposals made in code too.
	bad := []review.Proposal{{Op: review.OpDelete}}
	wantInputErr(t, CheckProposalTargets("api", bad, nil, all), "api", 0, "targets", "needs at least one target")
}

func TestReadDecisionsErrors(t *testing.T) {
	good := `{"id":"d1","proposal":"p1","verb":"accept","operator":"ada","at":"2026-11-02T11:00:00Z"}`
	for _, c := range []struct {
		name, in string
		line     int
		field    string
		msg      string
	}{
		{"unknown verb", good + "\n" + `{"id":"d2","proposal":"p1","verb":"approve","operator":"ada"}`, 2, "verb", `unknown verb "approve"`},
		{"missing id", `{"proposal":"p1","verb":"accept","operator":"ada"}`, 1, "id", "missing id"},
		{"missing operator", `{"id":"d2","proposal":"p1","verb":"accept"}`, 1, "operator", "missing operator"},
		{"duplicate", good + "\n" + good, 2, "id", `duplicate id "d1"`},
		{"bad time", `{"id":"d2","verb":"accept","operator":"ada","at":"yesterday"}`, 1, "at", `"yesterday" is not a time`},
		{"bad record", `{"id":"d2","verb":"edit","operator":"ada","record":{"lemma":"x","category":"nope"}}`, 1, "record.category", "unknown category"},
		{"unknown field", `{"id":"d2","verb":"accept","operator":"ada","who":"x"}`, 1, "who", "unknown field"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadDecisions(strings.NewReader(c.in), "decisions.jsonl")
			wantInputErr(t, err, "decisions.jsonl", c.line, c.field, c.msg)
		})
	}
}

func TestWriteJSONL(t *testing.T) {
	var b bytes.Buffer
	ts := []review.Target{{ID: "a<b>&c", Version: 2}, {ID: "d"}}
	if err := WriteJSONL(&b, ts); err != nil {
		t.Fatal(err)
	}
	want := `{"id":"a<b>&c","version":2}` + "\n" + `{"id":"d","version":0}` + "\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	if err := WriteJSONL[review.Record](&b, nil); err != nil || b.Len() != 0 {
		t.Errorf("no items: got %q, %v", b.String(), err)
	}
}

var fmtT0 = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)

func fmtSampleRecords() []review.Record {
	return []review.Record{{
		ID: "mem_1", Lemma: "Reviews join items on ref_id <> item_id & more.", Category: review.Relation,
		Scope: review.Scope{Env: "shop", Tags: []string{"sql", "g1"}, TaskFamily: "reviews"}, Trigger: "counting reviews",
		Steps: []string{"join", "group"}, Confidence: 0.9, Priority: 2,
		Provenance: review.Provenance{Trajectory: "traj_07", Steps: &review.StepRange{From: 4, To: 7}, ProbeRuns: []string{"run_1"}, MergedFrom: []string{"mem_0"}},
		Checks: []review.Check{{Env: "shop", Input: "SELECT 1", Expect: probe.Result{Env: "shop", Kind: probe.KindSQL, Input: "SELECT 1",
			Columns: []string{"1"}, Rows: [][]any{{float64(1), "x", nil}}, DurationMS: 0.5, Fingerprint: "fp"}}},
		Status: review.Active, Version: 3, Created: fmtT0, Updated: fmtT0.Add(time.Hour), VerifiedAgainst: "fp", Suspect: true,
	}, {
		ID: "mem_2", Lemma: "Ünïcode ✓ lemma.", Category: review.Warning, Status: review.Retired, Version: 1, Created: fmtT0, Updated: fmtT0,
		Provenance: review.Provenance{MergedInto: "mem_1"},
	}}
}

func TestRoundTrip(t *testing.T) {
	recs := fmtSampleRecords()
	props := []review.Proposal{
		{ID: "p1", Op: review.OpCreate, Record: &recs[1], Rationale: "r", Evidence: review.Evidence{Steps: []review.StepRange{{From: 1, To: 2}}, ProbeRuns: []string{"run_1"}},
			Trajectory: "traj_07", CuratorRun: "cur_1", Status: review.Pending, Created: fmtT0},
		{ID: "p2", Op: review.OpMerge, Targets: []review.Target{{ID: "mem_1", Version: 3}, {ID: "mem_2", Version: 1}}, Record: &recs[0], Status: review.Deferred, Created: fmtT0},
		{ID: "p3", Op: review.OpSkip, Status: review.Rejected, Created: fmtT0},
	}
	decs := []review.Decision{{ID: "d1", Proposal: "p2", Verb: review.Merge, Record: &recs[0], Changes: []review.RecordChange{{RecordID: "mem_1", Before: 3, After: 4, AfterR: &recs[0]}},
		Operator: "ada", Note: "n", At: fmtT0, Evidence: []string{"run_1"}, UndoneBy: "d2", PrevStatus: review.Pending}}
	trajs := []review.Trajectory{{ID: "traj_07", Env: "shop", Task: "count", Steps: []review.Step{
		{Role: "user", Content: "count"},
		{Role: "assistant", ToolCalls: []review.ToolCall{{ID: "c1", Name: "sql", Arguments: `{"q":"SELECT 1"}`, Result: "1"}}},
		{Role: "tool", Content: "1", ToolCallID: "c1", Name: "sql"},
	}, Outcome: review.Outcome{Passed: true, Reward: 1, Notes: "ok"}, Retrieved: []string{"mem_1"}, Started: fmtT0, Ended: fmtT0.Add(time.Minute),
		Distilled: &review.Packet{Task: "count", Observations: []review.Observation{{Steps: review.StepRange{From: 2, To: 3}, Text: "1 row"}}, Answer: "1"}}}

	var b bytes.Buffer
	roundTrip := func(name string, write func() error, read func() (any, error), want any) {
		t.Helper()
		b.Reset()
		if err := write(); err != nil {
			t.Fatalf("%s: write: %v", name, err)
		}
		if n := strings.Count(b.String(), "\n"); n != reflect.ValueOf(want).Len() {
			t.Errorf("%s: %d lines for %d items", name, n, reflect.ValueOf(want).Len())
		}
		got, err := read()
		if err != nil {
			t.Fatalf("%s: read back: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: round trip differs:\n got %+v\nwant %+v", name, got, want)
		}
	}
	roundTrip("records", func() error { return WriteJSONL(&b, recs) },
		func() (any, error) { return ReadRecords(bytes.NewReader(b.Bytes()), "r") }, recs)
	roundTrip("proposals", func() error { return WriteJSONL(&b, props) },
		func() (any, error) { ps, _, err := ReadProposals(bytes.NewReader(b.Bytes()), "p"); return ps, err }, props)
	roundTrip("decisions", func() error { return WriteJSONL(&b, decs) },
		func() (any, error) { return ReadDecisions(bytes.NewReader(b.Bytes()), "d") }, decs)
	roundTrip("trajectories", func() error { return WriteJSONL(&b, trajs) },
		func() (any, error) { return ReadChatTrajectories(bytes.NewReader(b.Bytes()), "t") }, trajs)
}
