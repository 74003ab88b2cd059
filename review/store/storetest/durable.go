package storetest

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
)

// durablePrefix marks the proposals Durability decides.
const durablePrefix = "dur_"

// durableCount is how many proposals Durability queues.
const durableCount = 120

// DurableChild is the body of Durability's child process: on b (the bank
// Durability seeded) it accepts the queued proposals one by one and,
// after each Decide returns, prints "decided PROPOSAL DECISION" on out —
// the moment a screen would show the decision as saved. It returns when
// none is left; Durability kills it long before.
func DurableChild(b Store, out io.Writer) error {
	q, err := b.Queue()
	if err != nil {
		return err
	}
	for _, p := range q {
		if !strings.HasPrefix(p.ID, durablePrefix) {
			continue
		}
		d, err := b.Decide(ctx, review.DecideRequest{Proposal: p.ID, Verb: review.Accept, Operator: "child"})
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(out, "decided %s %s\n", p.ID, d.ID); err != nil {
			return err
		}
	}
	return nil
}

// Durability checks that a decision reported as saved survives kill -9 of
// the process that made it, a few times over: it seeds the bank reopen
// opens with proposals, starts the child start returns (a process running
// DurableChild on that bank, writing to its stdout), kills it with SIGKILL
// after a random number of reported decisions, and checks on a fresh
// handle that every reported decision, its record and the proposal's
// status are there.
func Durability(t *testing.T, start func(t *testing.T) *exec.Cmd, reopen Opener) {
	b := reopen(t)
	Fixture(t, b)
	ps := make([]review.Proposal, durableCount)
	for i := range ps {
		ps[i] = review.Proposal{ID: fmt.Sprintf("%s%04d", durablePrefix, i), Op: review.OpCreate, Record: newRec(fmt.Sprintf("durable fact %d", i))}
	}
	must(t, b.AddProposals(ps, nil))
	b.Close()
	reported := map[string]string{} // proposal → decision
	for round := 0; round < 3; round++ {
		cmd := start(t)
		out, err := cmd.StdoutPipe()
		must(t, err)
		must(t, cmd.Start())
		kill := 1 + rand.IntN(12)
		sc := bufio.NewScanner(out)
		n := 0
		for n < kill && sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) == 3 && f[0] == "decided" {
				reported[f[1]] = f[2]
				n++
			}
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatalf("kill -9 the deciding process: %v", err)
		}
		io.Copy(io.Discard, out)
		cmd.Wait()
		if n < kill {
			t.Fatalf("round %d: the child reported %d decisions before ending, want %d (%v)", round, n, kill, sc.Err())
		}
		b := reopen(t)
		for pid, did := range reported {
			d, err := b.Decision(did)
			if err != nil || d.Proposal != pid || d.Record == nil {
				b.Close()
				t.Fatalf("round %d: decision %s on %s, reported saved before kill -9, is gone: %+v, %v", round, did, pid, d, err)
			}
			if _, err := b.Record(d.Record.ID); err != nil {
				b.Close()
				t.Fatalf("round %d: the record decision %s created is gone: %v", round, did, err)
			}
			if st := status(t, b, pid); st.Open() {
				b.Close()
				t.Fatalf("round %d: proposal %s is %s after its reported decision", round, pid, st)
			}
		}
		b.Close()
	}
	if len(reported) < 3 {
		t.Fatalf("only %d decisions were reported in all", len(reported))
	}
}
