package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/formats"
)

// TestNonFiniteCheckVerifies stores a record whose check is SELECT 1e999
// (and -1e999): verify, the stored check results, the record's export and
// its decoded copy all work, and the check holds.
func TestNonFiniteCheckVerifies(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	db := filepath.Join(s.Dir(), "n.db")
	w, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(`CREATE TABLE t(x REAL); INSERT INTO t VALUES (1e999), (-1e999)`); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := s.SaveConfig(review.Config{Envs: []probe.Env{{Name: "n", Kind: probe.KindSQL, Path: "n.db"}}}); err != nil {
		t.Fatal(err)
	}
	env, _ := s.ResolveEnv("n")
	var checks []review.Check
	for _, q := range []string{"SELECT 1e999", "SELECT -1e999", "SELECT x FROM t"} {
		checks = append(checks, review.Check{Env: "n", Input: q, Expect: probe.Run(context.Background(), env, q, probe.Limits{})})
	}
	if err := s.PutRecords([]review.Record{{ID: "mem_inf", Lemma: "infinite", Category: review.Fact, Confidence: 0.5, Checks: checks}}, "t", "t"); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 2; round++ { // the second round compares with what the first stored
		res, err := s.Verify(context.Background(), "")
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 3 {
			t.Fatalf("%d results", len(res))
		}
		for _, r := range res {
			if r.Verdict != probe.Same {
				t.Errorf("round %d %s: %s (%s)", round, r.Input, r.Verdict, r.Now.Error)
			}
		}
	}
	stored, err := s.CheckResults("mem_inf")
	if err != nil || len(stored) != 3 || stored[0].Now.Rows[0][0] != "+Inf" {
		t.Fatalf("stored check results %+v, %v", stored, err)
	}
	recs, _ := s.Records(review.RecordFilter{})
	var b bytes.Buffer
	if err := formats.WriteJSONL(&b, recs); err != nil {
		t.Fatal(err)
	}
	back, err := formats.ReadRecords(&b, "export.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var inf *review.Record
	for i := range back {
		if back[i].ID == "mem_inf" {
			inf = &back[i]
		}
	}
	if inf == nil || probe.Compare(inf.Checks[1].Expect, checks[1].Expect) != probe.Same {
		t.Fatalf("exported check does not compare equal: %+v", inf)
	}
	run := review.ProbeRun{Result: checks[0].Expect}
	id, err := s.SaveProbeRun(run)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.ProbeRun(id); err != nil || got.Result.Rows[0][0] != "+Inf" {
		t.Fatalf("probe run %+v, %v", got, err)
	}
}

// TestNaNConfidenceIsRefused: NaN passes "< 0 || > 1"; it must not reach
// the store (where it could not even be encoded).
func TestNaNConfidenceIsRefused(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	for _, c := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		err := s.PutRecords([]review.Record{{ID: "mem_nan", Lemma: "x", Category: review.Fact, Confidence: c}}, "t", "t")
		if err == nil || !strings.Contains(err.Error(), "confidence") {
			t.Errorf("confidence %v: %v", c, err)
		}
		err = s.AddProposals([]review.Proposal{{Op: review.OpCreate, Record: &review.Record{Lemma: "x", Category: review.Fact, Confidence: c}}}, nil)
		if err == nil {
			t.Errorf("proposal with confidence %v accepted", c)
		}
		if _, msg := review.CheckRecord(&review.Record{Lemma: "x", Category: review.Fact, Confidence: c}); msg == "" {
			t.Errorf("checkRecord accepted confidence %v", c)
		}
	}
}

// TestVerifyStopsOnConfigError: an unreadable or invalid memreview.toml is
// an error before any check runs, and no check result or suspect flag is
// written.
func TestVerifyStopsOnConfigError(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	db := filepath.Join(s.Dir(), "n.db")
	w, _ := sql.Open("sqlite", db)
	w.Exec(`CREATE TABLE t(x)`)
	w.Close()
	s.SaveConfig(review.Config{Envs: []probe.Env{{Name: "n", Kind: probe.KindSQL, Path: "n.db"}}})
	env, _ := s.ResolveEnv("n")
	q := "SELECT count(*) FROM t"
	if err := s.PutRecords([]review.Record{{ID: "mem_v", Lemma: "v", Category: review.Fact, Checks: []review.Check{{Env: "n", Input: q, Expect: probe.Run(context.Background(), env, q, probe.Limits{})}}}}, "t", "t"); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(s.Dir(), ConfigFile)
	for name, body := range map[string]string{
		"syntax":     "[[env]\nname = ",
		"empty name": "[[env]]\nname = \"\"\nkind = \"sql\"\npath = \"n.db\"\n",
		"duplicate":  "[[env]]\nname = \"n\"\nkind = \"sql\"\npath = \"n.db\"\n[[env]]\nname = \"n\"\nkind = \"sql\"\npath = \"n.db\"\n",
		"a folder":   "",
	} {
		os.RemoveAll(cfgPath)
		if name == "a folder" {
			os.Mkdir(cfgPath, 0o755) // unreadable as a file, whoever runs the test
		} else {
			os.WriteFile(cfgPath, []byte(body), 0o644)
		}
		if _, err := s.Verify(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "verify") {
			t.Errorf("%s: Verify = %v, want a config error", name, err)
		}
		if cr, _ := s.CheckResults("mem_v"); len(cr) != 0 {
			t.Errorf("%s: check results written: %+v", name, cr)
		}
		if r, _ := s.Record("mem_v"); r.Suspect {
			t.Errorf("%s: record marked suspect", name)
		}
	}
}

// TestOpenRefusesWhatIsNotABank: an empty bank.db, a non-SQLite file and
// another application's SQLite database are errors, as a missing one is,
// and none of them is changed.
func TestOpenRefusesWhatIsNotABank(t *testing.T) {
	t.Parallel()
	cases := map[string]func(path string){
		"empty": func(p string) { os.WriteFile(p, nil, 0o644) },
		"text": func(p string) {
			os.WriteFile(p, []byte("not a database at all, just some text that is long enough"), 0o644)
		},
		"other sqlite": func(p string) {
			db, _ := sql.Open("sqlite", p)
			db.Exec(`CREATE TABLE Album(id INTEGER)`)
			db.Close()
		},
		"a folder": func(p string) { os.Mkdir(p, 0o755) },
	}
	for name, make := range cases {
		dir := t.TempDir()
		path := filepath.Join(dir, DBFile)
		make(path)
		before, _ := os.ReadFile(path)
		s, err := Open(dir, Options{})
		if err == nil {
			s.Close()
			t.Errorf("%s: Open succeeded", name)
			continue
		}
		if !strings.Contains(err.Error(), "not a memreview bank") {
			t.Errorf("%s: error %q", name, err)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
			t.Errorf("%s: bank.db changed", name)
		}
	}
}

// TestReadOnlyBank: a bank opened read-only reads (queue, records, export)
// and refuses every write with ErrReadOnly, creating no file.
func TestReadOnlyBank(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	propose(t, s, review.Proposal{Op: review.OpCreate, Record: &review.Record{Lemma: "x", Category: review.Fact}})
	dir := s.Dir()
	s.Close()
	os.Remove(filepath.Join(dir, DBFile+"-wal"))
	os.Remove(filepath.Join(dir, DBFile+"-shm"))
	names := func() []string {
		es, _ := os.ReadDir(dir)
		var out []string
		for _, e := range es {
			out = append(out, e.Name())
		}
		return out
	}
	before := strings.Join(names(), ",")
	ro, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if q, err := ro.Queue(); err != nil || len(q) != 1 {
		t.Fatalf("queue: %v, %v", q, err)
	}
	if rs, err := ro.Records(review.RecordFilter{}); err != nil || len(rs) != 3 {
		t.Fatalf("records: %d, %v", len(rs), err)
	}
	err = ro.PutRecords([]review.Record{{ID: "mem_new", Lemma: "y", Category: review.Fact}}, "t", "t")
	if !errors.Is(err, ErrReadOnly) {
		t.Fatalf("write: %v, want ErrReadOnly", err)
	}
	if _, err := ro.SaveProbeRun(review.ProbeRun{}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("probe run: %v", err)
	}
	if after := strings.Join(names(), ","); after != before {
		t.Errorf("files %s became %s", before, after)
	}
	// As a user without write access (not root), Open picks read-only.
	if os.Geteuid() != 0 {
		os.Chmod(dir, 0o555)
		defer os.Chmod(dir, 0o755)
		auto, err := Open(dir, Options{})
		if err != nil || !auto.ReadOnly() {
			t.Fatalf("Open of an unwritable bank: %v", err)
		}
		auto.Close()
	}
	_ = json.Valid
}

// TestBadTimeNamesItsField: a time that does not parse, or a year past
// 9999, is an error naming the field, in records and proposals.
func TestBadTimeNamesItsField(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, field string }{
		{`{"id":"m1","lemma":"x","category":"fact","created":"yesterday"}`, "created"},
		{`{"id":"m1","lemma":"x","category":"fact","updated":"10000-01-01T00:00:00Z"}`, "updated"},
	} {
		_, err := formats.ReadRecords(strings.NewReader(c.in), "r.jsonl")
		wantInputErr(t, err, "r.jsonl", 1, c.field, "is not a time")
	}
	_, _, err := formats.ReadProposals(strings.NewReader(`{"op":"create","record":{"lemma":"x","category":"fact","created":"soon"}}`), "p.jsonl")
	wantInputErr(t, err, "p.jsonl", 1, "record.created", `"soon" is not a time`)
	_, err = formats.ReadDecisions(strings.NewReader(`{"id":"d","verb":"accept","operator":"o","at":"1/2/2026"}`), "d.jsonl")
	wantInputErr(t, err, "d.jsonl", 1, "at", "is not a time")
}

// TestDuplicateRecordNamesLineAndField: a record already in the bank, or
// in an earlier file of the same import, is refused naming file, line and
// field.
func TestDuplicateRecordNamesLineAndField(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	exists := func(id string) bool { _, err := s.Record(id); return err == nil }
	from := map[string]string{}
	recs, lines, err := formats.ReadRecordsAt(strings.NewReader("\n"+`{"id":"mem_new","lemma":"x","category":"fact"}`), "a.jsonl")
	if err != nil || lines[0] != 2 {
		t.Fatalf("%v %v", lines, err)
	}
	if err := formats.CheckNewRecords("a.jsonl", recs, lines, exists, from); err != nil {
		t.Fatal(err)
	}
	recs, lines, _ = formats.ReadRecordsAt(strings.NewReader(`{"id":"mem_x","lemma":"x","category":"fact"}`+"\n"+`{"id":"mem_new","lemma":"x","category":"fact"}`), "b.jsonl")
	err = formats.CheckNewRecords("b.jsonl", recs, lines, exists, from)
	wantInputErr(t, err, "b.jsonl", 2, "id", "also in a.jsonl:2")
	recs, lines, _ = formats.ReadRecordsAt(strings.NewReader(`{"id":"mem_b","lemma":"x","category":"fact"}`), "c.jsonl")
	err = formats.CheckNewRecords("c.jsonl", recs, lines, exists, map[string]string{})
	wantInputErr(t, err, "c.jsonl", 1, "id", "already in the bank")
}

// TestProposalTrajectoryReachesProvenance: a proposal with a trajectory
// and a record without provenance is accepted into a record whose
// provenance names the trajectory, the cited steps and the probe runs.
func TestProposalTrajectoryReachesProvenance(t *testing.T) {
	t.Parallel()
	s := newBank(t)
	if err := s.PutTrajectories([]review.Trajectory{{ID: "traj_9", Task: "t"}}); err != nil {
		t.Fatal(err)
	}
	propose(t, s, review.Proposal{ID: "prop_t", Op: review.OpCreate, Trajectory: "traj_9",
		Evidence: review.Evidence{Steps: []review.StepRange{{From: 4, To: 5}, {From: 2, To: 2}}},
		Record:   &review.Record{Lemma: "x", Category: review.Fact}})
	d, err := s.Decide(context.Background(), review.DecideRequest{Proposal: "prop_t", Verb: review.Accept, Operator: "o"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Record(d.Record.ID)
	if err != nil {
		t.Fatal(err)
	}
	if pv := r.Provenance; pv.Trajectory != "traj_9" || pv.Steps == nil || *pv.Steps != (review.StepRange{From: 2, To: 5}) {
		t.Fatalf("provenance %+v", pv)
	}
	// A record's own provenance wins.
	propose(t, s, review.Proposal{ID: "prop_u", Op: review.OpCreate, Trajectory: "traj_9",
		Record: &review.Record{Lemma: "y", Category: review.Fact, Provenance: review.Provenance{Trajectory: "traj_own"}}})
	d, _ = s.Decide(context.Background(), review.DecideRequest{Proposal: "prop_u", Verb: review.Accept, Operator: "o"})
	if r, _ := s.Record(d.Record.ID); r.Provenance.Trajectory != "traj_own" {
		t.Fatalf("own provenance replaced: %+v", r.Provenance)
	}
}
