package app_test

// Several processes on one bank: the test binary runs itself as child
// processes (TestMain dispatches on childRoleEnv) that hold the index,
// search or decide, and the tests kill them with SIGKILL.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/probe/mcpenv/mcptest"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/review/store/pg/pgtest"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/sample/testenv"
)

const (
	childRoleEnv = "MEMREVIEW_SERVICE_CHILD" // owner, search or decide
	childBankEnv = "MEMREVIEW_SERVICE_BANK"
	childForEnv  = "MEMREVIEW_SERVICE_FOR" // how long search and decide run
	// childRebuildEnv is the child's index.Tuning.RebuildMin (unset: the
	// program's).
	childRebuildEnv = "MEMREVIEW_SERVICE_REBUILD_MIN"
)

// ci is set by .ci/run: the stress tests run at full strength.
var ci = testenv.CI()

// bankRecords is the size of the bank the multi-process tests share; the
// CI run uses the 10,000 records the issue names.
func bankRecords() int {
	if ci {
		return 10000
	}
	return 500
}

// stressProposals is how many proposals the deciders share: enough that
// they are still deciding when the run ends.
func stressProposals() int {
	if ci {
		return 3000
	}
	return 400
}

func TestMain(m *testing.M) {
	testenv.LessGC()
	mcptest.MaybeServe() // the probe tests' MCP server is this binary
	if role := os.Getenv(childRoleEnv); role != "" {
		os.Exit(child(role, os.Getenv(childBankEnv)))
	}
	testenv.RunAtOnce(4)
	code := pgtest.Main(m) // a PostgreSQL server starts for the tests that ask for one
	sampleWorld.Remove()
	for _, dir := range []string{sharedBank.dir, benchBank.dir} {
		if dir != "" {
			os.RemoveAll(filepath.Dir(dir))
		}
	}
	os.Exit(code)
}

// sharedBank is generated once per test package run: a synthetic bank of
// bankRecords records, stressProposals pending proposals and a built index.
var sharedBank struct {
	once sync.Once
	dir  string
	err  error
}

// bankCopy returns a fresh copy of the shared bank for one test.
func bankCopy(t *testing.T) string {
	t.Helper()
	sharedBank.once.Do(func() {
		root, err := os.MkdirTemp("", "memreview-service-")
		if err != nil {
			sharedBank.err = err
			return
		}
		dir := filepath.Join(root, "bank")
		sharedBank.dir, sharedBank.err = dir, makeBank(dir)
	})
	if sharedBank.err != nil {
		t.Fatal(sharedBank.err)
	}
	dst := filepath.Join(t.TempDir(), "bank")
	if err := os.CopyFS(dst, os.DirFS(sharedBank.dir)); err != nil {
		t.Fatal(err)
	}
	return dst
}

func makeBank(dir string) error {
	if err := sample.Synth(dir, sample.SynthOptions{Records: bankRecords(), Trajectories: 20, Seed: sample.Seed}); err != nil {
		return err
	}
	svc, err := app.Open(context.Background(), dir, app.Options{Operator: "setup"})
	if err != nil {
		return err
	}
	defer svc.Close()
	ps := make([]review.Proposal, stressProposals())
	for i := range ps {
		ps[i] = review.Proposal{ID: fmt.Sprintf("prop_s%04d", i), Op: review.OpCreate, Rationale: "stress",
			Record: &review.Record{Lemma: fmt.Sprintf("stress fact number %d about shop prices", i), Category: review.Fact,
				Scope: review.Scope{Env: "shop"}, Confidence: 0.5}}
	}
	if err := svc.AddProposals(ps, nil); err != nil {
		return err
	}
	_, err = svc.IndexDocs() // builds and catches up the index
	return err
}

// child is a child process's body. It prints what it did on stdout, one
// fact a line, and returns its exit status.
func child(role, dir string) int {
	opt := app.Options{Operator: "child-" + strconv.Itoa(os.Getpid())}
	opt.IndexTuning.RebuildMin, _ = strconv.Atoi(os.Getenv(childRebuildEnv))
	svc, err := app.Open(context.Background(), dir, opt)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer svc.Close()
	d, _ := time.ParseDuration(os.Getenv(childForEnv))
	end := time.Now().Add(d)
	switch role {
	case "owner":
		if err := svc.HoldIndex(10 * time.Second); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println("ready")
		select {} // until killed
	case "search":
		words := []string{"prices", "join", "reviews", "cents", "stress", "items", "warning", "brand", "schema", "dollars"}
		n := 0
		for time.Now().Before(end) {
			res, err := svc.Search(app.SearchRequest{Query: words[rand.IntN(len(words))], Type: "record", Size: 10})
			if err != nil {
				fmt.Fprintln(os.Stderr, "search:", err)
				return 1
			}
			for _, h := range res.Hits {
				if _, err := svc.Record(h.ID); err != nil {
					fmt.Fprintf(os.Stderr, "hit %s is not a record the store holds: %v\n", h.ID, err)
					return 1
				}
			}
			if _, err := svc.Retrieve(app.RetrieveRequest{Task: "how are prices stored", K: 5, Preview: true}); err != nil {
				fmt.Fprintln(os.Stderr, "retrieve:", err)
				return 1
			}
			n++
		}
		fmt.Println("searches", n)
	case "decide":
		for time.Now().Before(end) {
			q, err := svc.Queue()
			if err != nil {
				fmt.Fprintln(os.Stderr, "queue:", err)
				return 1
			}
			if len(q) == 0 {
				break
			}
			p := q[rand.IntN(min(len(q), 8))] // the deciders contend for the head of the queue
			verb := review.Accept
			if rand.IntN(3) == 0 {
				verb = review.Reject
			}
			dec, err := svc.Decide(context.Background(), review.DecideRequest{Proposal: p.ID, Verb: verb})
			var ce *review.ConflictError
			switch {
			case err == nil:
				fmt.Println("decided", p.ID, dec.ID)
			case asConflict(err, &ce):
				fmt.Println("conflict", p.ID)
			default:
				fmt.Fprintln(os.Stderr, "decide:", err)
				return 1
			}
		}
		fmt.Println("done")
	case "eval":
		return evalChild(svc)
	case "retrieve":
		return retrieveChild(svc)
	default:
		fmt.Fprintln(os.Stderr, "unknown child role", role)
		return 2
	}
	return 0
}

// startChild starts the test binary as a child of role on dir.
func startChild(t testing.TB, role, dir string, d time.Duration, env ...string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childRoleEnv+"="+role, childBankEnv+"="+dir, childForEnv+"="+d.String())
	cmd.Env = append(cmd.Env, env...)
	var stderr strings.Builder
	cmd.Stderr = &lockedWriter{w: &stderr}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if s := stderr.String(); s != "" && t.Failed() {
			t.Logf("%s child %d stderr: %s", role, cmd.Process.Pid, s)
		}
	})
	return cmd, bufio.NewScanner(out)
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestKillIndexOwner kills the process that holds the index with SIGKILL
// at random moments (while it catches up with a batch of writes, or idle),
// 5 times (60 under MEMREVIEW_CI=1). Each time the next search from
// another process must succeed within 2 s and find everything committed;
// at the end the index must agree with the store.
func TestKillIndexOwner(t *testing.T) {
	t.Parallel()
	dir := bankCopy(t)
	rounds := 5
	if ci {
		rounds = 60
	}
	writer, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	// A rebuild swaps in a new index directory; catching up keeps this one.
	indexDir := func() uint64 {
		st, err := os.Stat(filepath.Join(dir, store.IndexDir))
		if err != nil {
			t.Fatal(err)
		}
		return st.Sys().(*syscall.Stat_t).Ino
	}
	ino := indexDir()
	var worst time.Duration
	for round := range rounds {
		owner, out := startChild(t, "owner", dir, 0)
		if !out.Scan() || out.Text() != "ready" {
			t.Fatalf("round %d: the owner did not get ready: %q", round, out.Text())
		}
		reader, err := app.Open(context.Background(), dir, app.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// A batch of new records the owner starts catching up with.
		n := 20 + rand.IntN(200)
		recs := make([]review.Record, n)
		for i := range recs {
			recs[i] = review.Record{ID: fmt.Sprintf("kill_%02d_%04d", round, i), Lemma: fmt.Sprintf("written in round %d before a kill", round),
				Category: review.Fact, Confidence: 0.5}
		}
		if err := writer.PutRecords(recs, "test", "kill -9"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rand.IntN(250)) * time.Millisecond)
		if err := owner.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		owner.Wait()

		start := time.Now()
		_, err = reader.Search(app.SearchRequest{Query: fmt.Sprintf("+round +%d +kill", round), Type: "record", Size: 1})
		took := time.Since(start)
		worst = max(worst, took)
		if err != nil {
			t.Fatalf("round %d: the search after kill -9 of the owner failed after %s: %v", round, took, err)
		}
		if took > 2*time.Second {
			t.Fatalf("round %d: the search after kill -9 of the owner took %s, over 2 s", round, took)
		}
		// Everything committed before the kill is searchable: the new owner
		// caught up from the index's stored sequence (no rebuild).
		res, err := reader.Search(app.SearchRequest{Query: fmt.Sprintf(`id:kill_%02d_*`, round), Type: "record", Size: 0})
		if err != nil || res.Total != uint64(n) {
			t.Fatalf("round %d: %v records of the batch of %d are in the index after the kill (%v)", round, total(res), n, err)
		}
		reader.Close()
		if indexDir() != ino {
			t.Fatalf("round %d: the index was rebuilt after the kill; a new owner must only catch up", round)
		}
	}
	t.Logf("%d kills; slowest first search after a kill: %s", rounds, worst)

	// The index agrees with the store.
	final, err := app.Open(context.Background(), dir, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer final.Close()
	recs, err := final.Records(review.RecordFilter{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := final.Search(app.SearchRequest{Type: "record", Size: 0, Filters: everyStatus})
	if err != nil || res.Total != uint64(len(recs)) {
		t.Fatalf("index holds %v records, the store %d (%v)", total(res), len(recs), err)
	}
}

func total(r *index.Results) any {
	if r == nil {
		return "no"
	}
	return r.Total
}

// TestManyProcesses runs 8 processes searching (and retrieving) and 2
// deciding on one bank at once, for 1 s (30 s under MEMREVIEW_CI=1): no
// process sees an error, every hit is a record the store holds, and every
// decision a decider reports is stored exactly once, with no proposal
// decided twice.
func TestManyProcesses(t *testing.T) {
	t.Parallel()
	dir := bankCopy(t)
	d := time.Second
	if ci {
		d = 30 * time.Second
	}
	type proc struct {
		role string
		cmd  *exec.Cmd
		out  *bufio.Scanner
	}
	var procs []proc
	for i := range 10 {
		role := "search"
		if i >= 8 {
			role = "decide"
		}
		cmd, out := startChild(t, role, dir, d)
		procs = append(procs, proc{role, cmd, out})
	}
	reported := map[string]string{} // proposal → decision
	searches := 0
	for _, p := range procs {
		for p.out.Scan() {
			f := strings.Fields(p.out.Text())
			switch {
			case len(f) == 3 && f[0] == "decided":
				if prev, dup := reported[f[1]]; dup {
					t.Errorf("proposal %s was decided twice: %s and %s", f[1], prev, f[2])
				}
				reported[f[1]] = f[2]
			case len(f) == 2 && f[0] == "searches":
				n, _ := strconv.Atoi(f[1])
				searches += n
			}
		}
		if err := p.cmd.Wait(); err != nil {
			t.Fatalf("a %s process failed: %v", p.role, err)
		}
	}
	svc, err := app.Open(context.Background(), dir, app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	ds, err := svc.Decisions()
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]string{}
	for _, dec := range ds {
		if dec.Operator == "setup" || !strings.HasPrefix(dec.Proposal, "prop_s") {
			continue
		}
		if prev, dup := stored[dec.Proposal]; dup {
			t.Errorf("proposal %s has two stored decisions: %s and %s", dec.Proposal, prev, dec.ID)
		}
		stored[dec.Proposal] = dec.ID
	}
	for p, id := range reported {
		if stored[p] != id {
			t.Errorf("decision %s on %s was reported but the store has %q", id, p, stored[p])
		}
	}
	if len(stored) != len(reported) {
		t.Errorf("the store has %d decisions on stress proposals, the deciders reported %d", len(stored), len(reported))
	}
	if len(reported) == 0 || searches == 0 {
		t.Fatalf("nothing happened: %d decisions, %d searches", len(reported), searches)
	}
	// The index agrees with the store: every accepted record is found.
	for p, id := range reported {
		dec, err := svc.Decision(id)
		if err != nil {
			t.Fatal(err)
		}
		if dec.Verb != review.Accept {
			continue
		}
		res, err := svc.Search(app.SearchRequest{Query: "id:" + index.EscapeQuery(dec.Record.ID), Type: "record"})
		if err != nil || res.Total != 1 {
			t.Fatalf("record %s accepted from %s is not in the index (%v, %v)", dec.Record.ID, p, total(res), err)
		}
	}
	t.Logf("%d searches+retrievals by 8 processes and %d decisions by 2 in %s", searches, len(reported), d)
}

// everyStatus counts retired records too (a search hides them by default).
var everyStatus = map[string][]string{"status": {string(review.Active), string(review.Retired)}}
