package pg

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store/pg/pgtest"
	"github.com/memreview/memreview/review/store/storetest"
	"github.com/memreview/memreview/sample/testenv"
)

// trials is how many races a fault test runs: 100 under MEMREVIEW_CI=1,
// a short but real 20 otherwise.
func trials() int {
	if testenv.CI() {
		return 100
	}
	return 20
}

// Two operators (two stores, as two processes) deciding at once: in every
// trial exactly one wins and the other gets the conflict, whether they
// race on one proposal or on two proposals changing one record.
func TestTwoOperatorsOneWinner(t *testing.T) {
	t.Parallel()
	alice, url := open(t)
	bob := openURL(t, url)
	ctx := context.Background()
	n := trials()
	for i := range n {
		id := fmt.Sprintf("mem_%03d", i)
		if err := alice.PutRecords([]review.Record{rec(id, "v1")}, "t", ""); err != nil {
			t.Fatal(err)
		}
		a, b := rec("", "alice's version"), rec("", "bob's version")
		ps := []review.Proposal{
			{Op: review.OpUpdate, Targets: []review.Target{{ID: id}}, Record: &a},
			{Op: review.OpUpdate, Targets: []review.Target{{ID: id}}, Record: &b},
		}
		if err := alice.AddProposals(ps, nil); err != nil {
			t.Fatal(err)
		}
		bobsProposal := ps[0].ID // same proposal
		if i%2 == 1 {
			bobsProposal = ps[1].ID // another proposal, same target record
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, 2)
		for j, who := range []struct {
			s    *Store
			op   string
			prop string
		}{{alice, "alice", ps[0].ID}, {bob, "bob", bobsProposal}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, errs[j] = who.s.Decide(ctx, review.DecideRequest{Proposal: who.prop, Verb: review.Accept, Operator: who.op})
			}()
		}
		close(start)
		wg.Wait()
		won := 0
		for _, err := range errs {
			var ce *review.ConflictError
			switch {
			case err == nil:
				won++
			case errors.As(err, &ce) && strings.HasPrefix(err.Error(), "conflict: "):
			default:
				t.Fatalf("trial %d: %v, want success or a conflict", i, err)
			}
		}
		if won != 1 {
			t.Fatalf("trial %d: %d operators won (errors %v), want exactly one", i, won, errs)
		}
		r, err := alice.Record(id)
		if err != nil || r.Version != 2 {
			t.Fatalf("trial %d: record at %+v %v, want exactly one new version", i, r, err)
		}
	}
	ds, err := alice.Decisions()
	if err != nil || len(ds) != n {
		t.Fatalf("%d decisions %v, want %d (one per trial)", len(ds), err, n)
	}
}

// slowDecisions makes every decision sleep inside its transaction, after it
// has written its record versions and proposal status but before its
// audit row: the middle of a decision, where a fault must leave nothing.
func slowDecisions(t *testing.T, s *Store, d time.Duration) {
	t.Helper()
	_, err := s.DB().Exec(fmt.Sprintf(`CREATE FUNCTION slow() RETURNS trigger AS $$ BEGIN PERFORM pg_sleep(%g); RETURN NEW; END $$ LANGUAGE plpgsql;
		CREATE TRIGGER slow BEFORE INSERT ON decisions FOR EACH ROW EXECUTE FUNCTION slow()`, d.Seconds()))
	if err != nil {
		t.Fatal(err)
	}
}

// waitSleeping waits until a session of the server is inside pg_sleep.
func waitSleeping(t *testing.T, s *Store, want bool) {
	t.Helper()
	for range 200 {
		var n int
		if err := s.DB().QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if (n > 0) == want {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("no session reached sleeping=%v", want)
}

// decideFixture imports mem_a and queues an update of it.
func decideFixture(t *testing.T, s *Store) string {
	t.Helper()
	if err := s.PutRecords([]review.Record{rec("mem_a", "a joins b")}, "t", ""); err != nil {
		t.Fatal(err)
	}
	upd := rec("", "a joins b on id")
	ps := []review.Proposal{{Op: review.OpUpdate, Targets: []review.Target{{ID: "mem_a"}}, Record: &upd}}
	if err := s.AddProposals(ps, nil); err != nil {
		t.Fatal(err)
	}
	return ps[0].ID
}

// untouched checks that a decision that died left nothing behind.
func untouched(t *testing.T, s *Store, prop string) {
	t.Helper()
	r, err := s.Record("mem_a")
	if err != nil || r.Version != 1 || r.Lemma != "a joins b" {
		t.Fatalf("record after the fault: %+v %v, want version 1 unchanged", r, err)
	}
	if h, _ := s.History("mem_a"); len(h) != 1 {
		t.Fatalf("history has %d versions, want 1", len(h))
	}
	p, err := s.Proposal(prop)
	if err != nil || p.Status != review.Pending {
		t.Fatalf("proposal after the fault: %+v %v, want pending", p, err)
	}
	if ds, _ := s.Decisions(); len(ds) != 0 {
		t.Fatalf("decisions after the fault: %+v, want none", ds)
	}
}

// The server crashes (pg_ctl stop -m immediate) in the middle of a
// decision: the operator gets a clear error, nothing is half-applied, and
// the same store (and its watcher) works again once the server is back.
func TestServerStopMidDecision(t *testing.T) {
	t.Parallel()
	srv := pgtest.Own(t)
	url, err := srv.CreateDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s := openURL(t, url)
	prop := decideFixture(t, s)
	slowDecisions(t, s, 30*time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wake := s.Watch(ctx)

	done := make(chan error, 1)
	go func() {
		_, err := s.Decide(ctx, review.DecideRequest{Proposal: prop, Verb: review.Accept, Operator: "alice"})
		done <- err
	}()
	waitSleeping(t, s, true)
	if err := srv.Stop("immediate"); err != nil {
		t.Fatal(err)
	}
	err = <-done
	if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "nothing in this step was saved") {
		t.Fatalf("decision during the crash: %v, want a clear unreachable error", err)
	}
	if _, err := s.Record("mem_a"); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("read while the server is down: %v, want ErrUnreachable", err)
	}
	for len(wake) > 0 {
		<-wake
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	untouched(t, s, prop)
	select { // the watcher reconnects and says so, so followers catch up
	case <-wake:
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher did not come back after the restart")
	}
	if _, err := s.DB().Exec(`DROP TRIGGER slow ON decisions`); err != nil {
		t.Fatal(err)
	}
	d, err := s.Decide(ctx, review.DecideRequest{Proposal: prop, Verb: review.Accept, Operator: "alice"})
	if err != nil || len(d.Changes) != 1 || d.Changes[0].After != 2 {
		t.Fatalf("decision after the restart: %+v %v, want it applied", d, err)
	}
}

// helperEnv makes the test binary act as another memreview process.
const helperEnv = "PGSTORE_TEST_HELPER"

// runHelper is the other process: it opens the bank and decides or claims,
// then waits to be killed.
func runHelper() {
	s, err := Open(context.Background(), os.Getenv("PGSTORE_TEST_URL"), Options{ConfigDir: os.TempDir()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	prop := os.Getenv("PGSTORE_TEST_PROPOSAL")
	switch os.Getenv(helperEnv) {
	case "decide":
		_, err = s.Decide(context.Background(), review.DecideRequest{Proposal: prop, Verb: review.Accept, Operator: "killed"})
	case "durable":
		err = storetest.DurableChild(s, os.Stdout)
		if err == nil {
			os.Exit(0)
		}
	case "claim":
		_, err = s.Claim(prop, "killed", time.Second)
		fmt.Println("claimed")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	select {} // until killed
}

func helper(t *testing.T, mode, url, prop string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, "PGSTORE_TEST_URL="+url, "PGSTORE_TEST_PROPOSAL="+prop)
	cmd.Stderr = os.Stderr
	return cmd
}

// kill -9 of a process in the middle of its decision: nothing is applied.
func TestKilledMidDecision(t *testing.T) {
	t.Parallel()
	s, url := open(t)
	prop := decideFixture(t, s)
	slowDecisions(t, s, time.Second)
	cmd := helper(t, "decide", url, prop)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitSleeping(t, s, true)
	cmd.Process.Kill()
	cmd.Wait()
	waitSleeping(t, s, false) // the server notices at the end of the statement and rolls back
	for range 200 {
		var n int
		s.DB().QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in transaction%' OR wait_event = 'PgSleep'`).Scan(&n)
		if n == 0 {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	untouched(t, s, prop)
}

// A claim held by a process that was killed expires, and the proposal
// returns to the others.
func TestKilledClaimExpires(t *testing.T) {
	t.Parallel()
	s, url := open(t)
	prop := decideFixture(t, s)
	cmd := helper(t, "claim", url, prop)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, _ := out.Read(buf); !strings.Contains(string(buf[:n]), "claimed") {
		t.Fatalf("helper said %q", buf[:n])
	}
	cmd.Process.Kill()
	cmd.Wait()
	var ce *review.ClaimedError
	if _, err := s.Claim(prop, "bob", review.ClaimTTL); !errors.As(err, &ce) || ce.Claim.Operator != "killed" {
		t.Fatalf("bob's claim right after the kill: %v, want the dead process's live claim", err)
	}
	time.Sleep(time.Until(ce.Claim.Expires) + 50*time.Millisecond)
	if claims, _ := s.Claims(); len(claims) != 0 {
		t.Fatalf("claims after expiry: %+v", claims)
	}
	if _, err := s.Claim(prop, "bob", review.ClaimTTL); err != nil {
		t.Fatalf("bob cannot take the proposal back: %v", err)
	}
}
