package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/formats"
)

// atLimit returns a record with a MaxIDBytes id, a MaxTextBytes lemma and
// steps filled so that the record is exactly MaxRecordBytes as JSON.
func atLimit(t *testing.T, n int) review.Record {
	t.Helper()
	id := fmt.Sprintf("mem_%d_", n)
	id += strings.Repeat("i", review.MaxIDBytes-len(id))
	r := review.Record{ID: id, Lemma: strings.Repeat("l", review.MaxTextBytes), Trigger: strings.Repeat("t", review.MaxTextBytes),
		Category: review.Fact, Confidence: 1, Status: review.Active, Version: 1, Scope: review.Scope{Tags: []string{strings.Repeat("g", review.MaxTextBytes)}}}
	for review.ContentSize(&r)+review.MaxTextBytes+3 <= review.MaxRecordBytes {
		r.Steps = append(r.Steps, strings.Repeat("s", review.MaxTextBytes))
	}
	r.Steps = append(r.Steps, "")
	r.Steps[len(r.Steps)-1] = strings.Repeat("s", review.MaxRecordBytes-review.ContentSize(&r))
	if got := review.ContentSize(&r); got != review.MaxRecordBytes {
		t.Fatalf("fixture is %d bytes, want %d", got, review.MaxRecordBytes)
	}
	return r
}

// TestLimitsRoundTrip fills a bank at every limit (ids, text fields,
// records, a merge decision carrying several full records) through the
// store's own entry points, exports it and reads every file back, and
// imports the records and proposals into a fresh bank.
func TestLimitsRoundTrip(t *testing.T) {
	t.Parallel()
	s, err := Create(t.TempDir(), Options{Now: fixedClock()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var recs []review.Record
	for i := range 3 {
		recs = append(recs, atLimit(t, i))
	}
	recs[0].Version = 0
	if err := s.PutRecords(recs, strings.Repeat("o", review.MaxTextBytes), "import"); err != nil {
		t.Fatal(err)
	}
	merged := atLimit(t, 9)
	merged.ID = ""
	p := review.Proposal{ID: "prop_" + strings.Repeat("p", review.MaxIDBytes-5), Op: review.OpMerge, Record: &merged,
		Rationale: strings.Repeat("r", review.MaxTextBytes)}
	for _, r := range recs[:2] {
		p.Targets = append(p.Targets, review.Target{ID: r.ID})
	}
	if err := s.AddProposals([]review.Proposal{p}, nil); err != nil {
		t.Fatal(err)
	}
	d, err := s.Decide(context.Background(), review.DecideRequest{Proposal: p.ID, Verb: review.Merge, Operator: strings.Repeat("o", review.MaxTextBytes), Note: strings.Repeat("n", review.MaxTextBytes)})
	if err != nil {
		t.Fatal(err)
	}
	if n := review.EncodedSize(d); n < 4<<20 {
		t.Fatalf("the merge decision is only %d bytes; the fixture does not reach the limits", n)
	}

	allRecs, _ := s.Records(review.RecordFilter{})
	props, _ := s.Proposals()
	decs, _ := s.Decisions()
	var rb, pb, db bytes.Buffer
	for _, w := range []error{formats.WriteJSONL(&rb, allRecs), formats.WriteJSONL(&pb, props), formats.WriteJSONL(&db, decs)} {
		if w != nil {
			t.Fatal(w)
		}
	}
	backRecs, err := formats.ReadRecords(&rb, "records.jsonl")
	if err != nil || len(backRecs) != len(allRecs) {
		t.Fatalf("records back: %d, %v", len(backRecs), err)
	}
	backProps, lines, err := formats.ReadProposals(&pb, "proposals.jsonl")
	if err != nil || len(backProps) != 1 {
		t.Fatalf("proposals back: %v", err)
	}
	if _, err := formats.ReadDecisions(&db, "decisions.jsonl"); err != nil {
		t.Fatalf("decisions back: %v", err)
	}
	fresh, err := Create(t.TempDir(), Options{Now: fixedClock()})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if err := fresh.PutRecords(backRecs, "import", "import"); err != nil {
		t.Fatalf("import records: %v", err)
	}
	exists := func(id string) bool { _, err := fresh.Record(id); return err == nil }
	if err := formats.CheckProposalTargets("proposals.jsonl", backProps, lines, exists); err != nil {
		t.Fatal(err)
	}
	if err := fresh.AddProposals(backProps, nil); err != nil {
		t.Fatalf("import proposals: %v", err)
	}
}

// TestLimitsRefuseAtEveryEntry: one byte over a limit is refused by the
// store (any source) and by the readers (naming file, line and field), and
// nothing is written.
func TestLimitsRefuseAtEveryEntry(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	big := atLimit(t, 1)
	big.Steps[len(big.Steps)-1] += "s"
	long := strings.Repeat("x", review.MaxTextBytes+1)
	longID := strings.Repeat("i", review.MaxIDBytes+1)
	refuse := func(what string, err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error about %q", what, err, want)
		}
	}
	refuse("record over 1 MiB", s.PutRecords([]review.Record{big}, "t", "t"), "a record may hold")
	refuse("lemma", s.PutRecords([]review.Record{{ID: "mem_x", Lemma: long, Category: review.Fact}}, "t", "t"), `"lemma"`)
	refuse("id", s.PutRecords([]review.Record{{ID: longID, Lemma: "x", Category: review.Fact}}, "t", "t"), "an id may hold")
	refuse("proposal record", s.AddProposals([]review.Proposal{{Op: review.OpCreate, Record: &big}}, nil), "a record may hold")
	refuse("rationale", s.AddProposals([]review.Proposal{{Op: review.OpCreate, Record: &review.Record{Lemma: "x", Category: review.Fact}, Rationale: long}}, nil), "rationale")
	propose(t, s, review.Proposal{ID: "prop_ok", Op: review.OpCreate, Record: &review.Record{Lemma: "x", Category: review.Fact}})
	_, err := s.Decide(context.Background(), review.DecideRequest{Proposal: "prop_ok", Verb: review.Accept, Operator: "o", Note: long})
	refuse("note", err, `"note"`)
	_, err = s.Decide(context.Background(), review.DecideRequest{Proposal: "prop_ok", Verb: review.Edit, Operator: "o", Record: &review.Record{Lemma: long, Category: review.Fact}})
	refuse("edit lemma", err, `"lemma"`)
	_, err = s.DecideRecords(context.Background(), review.RecordRequest{Verb: review.Edit, Operator: "o", Record: &review.Record{ID: "mem_a", Lemma: "x", Category: review.Fact, Trigger: long}})
	refuse("record edit trigger", err, `"trigger"`)
	if q, _ := s.Queue(); len(q) != 1 {
		t.Errorf("queue holds %d proposals, want the one", len(q))
	}
	if ds, _ := s.Decisions(); len(ds) != 0 {
		t.Errorf("%d decisions written", len(ds))
	}
	line := func(id, v string) string { return `{"id":"` + id + `","lemma":"` + v + `","category":"fact"}` + "\n" }
	_, err = formats.ReadRecords(strings.NewReader(line("mem_x", "ok")+line("mem_y", long)), "r.jsonl")
	wantInputErr(t, err, "r.jsonl", 2, "lemma", "a text field may hold")
	_, _, err = formats.ReadProposals(strings.NewReader(`{"op":"create","record":{"lemma":"`+long+`","category":"fact"}}`), "p.jsonl")
	wantInputErr(t, err, "p.jsonl", 1, "record.lemma", "a text field may hold")
	_, _, err = formats.ReadProposals(strings.NewReader(`{"op":"create","rationale":"`+long+`","record":{"lemma":"x","category":"fact"}}`), "p.jsonl")
	wantInputErr(t, err, "p.jsonl", 1, "rationale", "a text field may hold")
}

// TestIDsRefused: ids with path separators, dot names, NUL, newlines,
// escapes, bidi controls, white space or over 200 bytes are refused by
// every reader (naming file, line and field) and by the store.
func TestIDsRefused(t *testing.T) {
	t.Parallel()
	bad := []string{"../etc", "a/b", `a\b`, "..", ".", "a\x00b", "a\nb", "a\x1b]0;title\x07", "a\u202eb", "a b", "a\tb", "\u0085x", strings.Repeat("i", review.MaxIDBytes+1), "a\u009bb"}
	good := []string{"mem_1", "traj-tau.airline_3", "日本語", strings.Repeat("i", review.MaxIDBytes)}
	for _, id := range good {
		if err := review.CheckID(id); err != nil {
			t.Errorf("CheckID(%q) = %v", id, err)
		}
	}
	s := newBank(t)
	for _, id := range bad {
		if review.CheckID(id) == nil {
			t.Errorf("CheckID(%q) accepted it", id)
		}
		q := jsonString(id)
		_, err := formats.ReadRecords(strings.NewReader(`{"id":"mem_ok","lemma":"x","category":"fact"}`+"\n"+`{"id":`+q+`,"lemma":"x","category":"fact"}`), "r.jsonl")
		wantInputErr(t, err, "r.jsonl", 2, "id", "")
		_, _, err = formats.ReadProposals(strings.NewReader(`{"id":`+q+`,"op":"create","record":{"lemma":"x","category":"fact"}}`), "p.jsonl")
		wantInputErr(t, err, "p.jsonl", 1, "id", "")
		_, _, err = formats.ReadProposals(strings.NewReader(`{"op":"delete","targets":[{"id":`+q+`}]}`), "p.jsonl")
		wantInputErr(t, err, "p.jsonl", 1, "targets[0].id", "")
		_, _, err = formats.ReadProposals(strings.NewReader(`{"op":"create","trajectory":`+q+`,"record":{"lemma":"x","category":"fact"}}`), "p.jsonl")
		wantInputErr(t, err, "p.jsonl", 1, "trajectory", "")
		_, err = formats.ReadDecisions(strings.NewReader(`{"id":`+q+`,"verb":"accept","operator":"o"}`), "d.jsonl")
		wantInputErr(t, err, "d.jsonl", 1, "id", "")
		if err := s.PutRecords([]review.Record{{ID: id, Lemma: "x", Category: review.Fact}}, "t", "t"); err == nil {
			t.Errorf("PutRecords(%q) accepted it", id)
		}
		if err := s.AddProposals([]review.Proposal{{ID: id, Op: review.OpCreate, Record: &review.Record{Lemma: "x", Category: review.Fact}}}, nil); err == nil {
			t.Errorf("AddProposals(%q) accepted it", id)
		}
		if err := s.PutTrajectories([]review.Trajectory{{ID: id}}); err == nil {
			t.Errorf("PutTrajectories(%q) accepted it", id)
		}
		if err := s.AddProposals([]review.Proposal{{Op: review.OpCreate, Trajectory: id, Record: &review.Record{Lemma: "x", Category: review.Fact}}}, nil); err == nil {
			t.Errorf("a proposal citing trajectory %q was accepted", id)
		}
	}
	if q, _ := s.Queue(); len(q) != 0 {
		t.Errorf("%d proposals got in", len(q))
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestTrajectoryIDsRefused: the trajectory readers refuse a bad id or a
// bad retrieved id, naming file, line and field.
func TestTrajectoryIDsRefused(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"../x", "a\x1bb", "a b"} {
		in := `{"id":` + jsonString(id) + `,"steps":[{"role":"user","content":"x"}]}`
		_, err := formats.ReadChatTrajectories(strings.NewReader(in), "t.jsonl")
		wantInputErr(t, err, "t.jsonl", 1, "id", "")
		in = `{"id":"traj_ok","steps":[{"role":"user","content":"x"}],"retrieved":[` + jsonString(id) + `]}`
		_, err = formats.ReadChatTrajectories(strings.NewReader(in), "t.jsonl")
		wantInputErr(t, err, "t.jsonl", 1, "retrieved[0]", "")
	}
}

// TestNewVersionSizeBound: NewVersion measures the content only when the
// body is near the limit. A record at the limit whose provenance makes the
// body longer than MaxRecordBytes is still taken (the content is what the
// limit bounds), and one byte more of content is refused.
func TestNewVersionSizeBound(t *testing.T) {
	t.Parallel()
	r := atLimit(t, 1)
	r.Provenance = review.Provenance{Trajectory: "traj_1", ProbeRuns: []string{"run_1", "run_2"}}
	body, err := review.NewVersion(&r, 0, fixedClock()())
	if err != nil {
		t.Fatalf("a record at the limit: %v", err)
	}
	if len(body) <= review.MaxRecordBytes {
		t.Fatalf("the body is %d bytes; the fixture should take it over %d", len(body), review.MaxRecordBytes)
	}
	over := atLimit(t, 2)
	over.Steps[len(over.Steps)-1] += "s"
	if _, err := review.NewVersion(&over, 0, fixedClock()()); err == nil || !strings.Contains(err.Error(), "bytes as JSON") {
		t.Fatalf("a record a byte over the limit: %v", err)
	}
	nan := review.Record{ID: "mem_nan", Lemma: "x", Category: review.Fact}
	nan.Confidence = nan.Confidence / nan.Confidence // NaN, refused before the body is encoded
	if _, err := review.NewVersion(&nan, 0, fixedClock()()); err == nil || !strings.Contains(err.Error(), "confidence") {
		t.Fatalf("a NaN confidence: %v", err)
	}
}

// TestLineBound: a record read from a line never encodes to more than
// lineBound of the line's length, on lines built to expand the most
// (characters JSON escapes, checks that leave out their expected result, numbers written short),
// and a line whose record is over the limit is still refused with its
// file and line.
func TestLineBound(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"id":"m1","lemma":"x","category":"fact"}`,
		`{"id":"m2","lemma":"` + strings.Repeat("<>&", 300) + `","category":"fact","checks":[` + strings.Repeat(`{"env":"e","input":"<"},`, 200) + `{"env":"e","input":"i"}]}`,
		`{"id":"m3","lemma":"\u2028x","category":"fact","confidence":1e-7,"steps":[` + strings.Repeat(`"<",`, 99) + `"&"],"checks":[{"env":"e","input":"i","expect":{"rows":[[1e300,"<",{"a":"&"}]]}}]}`,
	}
	for _, line := range lines {
		recs, err := formats.ReadRecords(strings.NewReader(line+"\n"), "b.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		if n, bound := review.ContentSize(&recs[0]), formats.LineBound(len(line)); n > bound {
			t.Errorf("%s: %d bytes as JSON from a %d-byte line, over the bound %d", recs[0].ID, n, len(line), bound)
		}
	}
	over := atLimit(t, 3)
	over.Steps[len(over.Steps)-1] += "s"
	b, err := json.Marshal(over)
	if err != nil {
		t.Fatal(err)
	}
	_, err = formats.ReadRecords(strings.NewReader("\n"+string(b)+"\n"), "big.jsonl")
	wantInputErr(t, err, "big.jsonl", 2, "", "a record may hold")
}
