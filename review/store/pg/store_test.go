package pg

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store/pg/pgtest"
	"github.com/memreview/memreview/review/store/storetest"
	"github.com/memreview/memreview/sample/testenv"
)

func TestMain(m *testing.M) {
	testenv.LessGC()
	if os.Getenv(helperEnv) != "" {
		runHelper()
	}
	// 16: each conformance case waits on the server (its own CREATE
	// DATABASE, the schema, round trips), so 4 at once left the package
	// waiting ~6 s on two cores; 16 at once use ~22 of the server's 200
	// connections.
	testenv.RunAtOnce(16)
	code := pgtest.Main(m)
	if durableSrv != nil {
		durableSrv.Close()
	}
	os.Exit(code)
}

// open opens a fresh bank on the package's server; url is its database.
func open(t testing.TB) (*Store, string) {
	t.Helper()
	url := pgtest.NewDB(t)
	s := openURL(t, url)
	return s, url
}

func openURL(t testing.TB, url string) *Store {
	t.Helper()
	s, err := Open(context.Background(), url, Options{ConfigDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func rec(id, lemma string) review.Record {
	return review.Record{ID: id, Lemma: lemma, Category: review.Fact, Confidence: 0.8, Scope: review.Scope{Env: "shop"}}
}

// The basic flow on PostgreSQL: import, propose, decide, conflict, undo,
// with the same ids and errors as SQLite.
func TestDecideFlow(t *testing.T) {
	t.Parallel()
	s, _ := open(t)
	ctx := context.Background()
	if err := s.PutRecords([]review.Record{rec("mem_a", "a joins b"), rec("mem_b", "b has c")}, "test", "import"); err != nil {
		t.Fatal(err)
	}
	upd := rec("", "a joins b on id")
	ps := []review.Proposal{
		{Op: review.OpUpdate, Targets: []review.Target{{ID: "mem_a"}}, Record: &upd, Rationale: "sharper"},
		{Op: review.OpUpdate, Targets: []review.Target{{ID: "mem_a"}}, Record: &upd, Rationale: "same target"},
	}
	if err := s.AddProposals(ps, nil); err != nil {
		t.Fatal(err)
	}
	if ps[0].ID != "prop_0001" || ps[1].ID != "prop_0002" {
		t.Fatalf("proposal ids %s %s, want prop_0001 prop_0002", ps[0].ID, ps[1].ID)
	}
	d, err := s.Decide(ctx, review.DecideRequest{Proposal: ps[0].ID, Verb: review.Accept, Operator: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != "dec_0001" || len(d.Changes) != 1 || d.Changes[0].After != 2 {
		t.Fatalf("decision %+v, want dec_0001 writing mem_a v2", d)
	}
	_, err = s.Decide(ctx, review.DecideRequest{Proposal: ps[1].ID, Verb: review.Accept, Operator: "bob"})
	var ce *review.ConflictError
	if !errors.As(err, &ce) || ce.Record != "mem_a" || ce.By != "alice" || ce.Now != 2 {
		t.Fatalf("second accept: %v, want a conflict on mem_a naming alice", err)
	}
	if _, err := s.Record("mem_zz"); !errors.Is(err, review.ErrNotFound) {
		t.Fatalf("missing record: %v, want ErrNotFound", err)
	}
	if _, err := s.Undo(ctx, "", "alice", "oops"); err != nil {
		t.Fatal(err)
	}
	r, err := s.Record("mem_a")
	if err != nil || r.Version != 3 || r.Lemma != "a joins b" {
		t.Fatalf("after undo: %+v %v, want v3 with the old lemma", r, err)
	}
	q, err := s.Queue()
	if err != nil || len(q) != 2 {
		t.Fatalf("queue after undo has %d, %v; want both proposals", len(q), err)
	}
	seq, err := s.LastSeq()
	if err != nil || seq == 0 {
		t.Fatalf("last seq %d %v", seq, err)
	}
	chs, err := s.ChangesSince(0)
	if err != nil || len(chs) != 4 { // mem_a, mem_b, prop_0001, prop_0002
		t.Fatalf("changes %v %v, want 4 objects", chs, err)
	}
}

// Reopening a bank keeps its id and schema; a second process sees the first's writes.
func TestReopenKeepsBankID(t *testing.T) {
	t.Parallel()
	a, url := open(t)
	b := openURL(t, url)
	if a.BankID() == "" || a.BankID() != b.BankID() {
		t.Fatalf("bank ids %q and %q, want one id", a.BankID(), b.BankID())
	}
	if err := a.PutRecords([]review.Record{rec("mem_x", "x")}, "t", ""); err != nil {
		t.Fatal(err)
	}
	if r, err := b.Record("mem_x"); err != nil || r.Lemma != "x" {
		t.Fatalf("other process reads %+v %v", r, err)
	}
	other, _ := open(t)
	if other.BankID() == a.BankID() {
		t.Fatal("two databases got the same bank id")
	}
}

// A commit in one process wakes another's Watch well within a second.
func TestWatchWakesOnCommit(t *testing.T) {
	t.Parallel()
	a, url := open(t)
	b := openURL(t, url)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wake := b.Watch(ctx)
	select { // the first wake-up says the listener is up
	case <-wake:
	case <-time.After(10 * time.Second):
		t.Fatal("the listener never started")
	}
	before, _ := b.LastSeq()
	if err := a.PutRecords([]review.Record{rec("mem_w", "w")}, "t", ""); err != nil {
		t.Fatal(err)
	}
	select {
	case <-wake:
	case <-time.After(time.Second):
		t.Fatal("no wake-up within 1 s of a commit")
	}
	chs, err := b.ChangesSince(before)
	if err != nil || len(chs) != 1 || chs[0].ID != "mem_w" {
		t.Fatalf("changes after wake-up: %v %v, want mem_w", chs, err)
	}
	// A rolled-back write (a duplicate import) notifies nobody.
	if err := a.PutRecords([]review.Record{rec("mem_w", "again")}, "t", ""); err == nil {
		t.Fatal("duplicate import succeeded")
	}
	select {
	case <-wake:
		t.Fatal("a rolled-back transaction woke the watcher")
	case <-time.After(300 * time.Millisecond):
	}
}

func TestPostgresClaims(t *testing.T) {
	t.Parallel()
	storetest.RunClaims(t, func(t *testing.T) storetest.Store { s, _ := open(t); return s })
}

// The conformance suite on PostgreSQL, each case on a database of its own.
func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) storetest.Store {
		url := pgtest.NewDB(t)
		s, err := Open(context.Background(), url, Options{ConfigDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// Decisions survive kill -9 of the process that made them.
func TestConformanceDurability(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDB(t)
	storetest.Durability(t, func(t *testing.T) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"=durable", "PGSTORE_TEST_URL="+url)
		cmd.Stderr = os.Stderr
		return cmd
	}, func(t *testing.T) storetest.Store {
		s, err := Open(context.Background(), url, Options{ConfigDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// A server that is not there is a sentence that says so, naming where.
func TestOpenUnreachable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := Open(context.Background(), "postgres://alice@/team?host="+dir, Options{ConfigDir: dir})
	if err == nil || !strings.Contains(err.Error(), "cannot reach the PostgreSQL bank (socket "+dir+", database team)") {
		t.Fatalf("open with no server: %v", err)
	}
}

func TestPostgresAgents(t *testing.T) {
	t.Parallel()
	storetest.RunAgents(t, func(t *testing.T) storetest.AgentStore { s, _ := open(t); return s })
}
