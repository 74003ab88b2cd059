package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// TestLiveChangesFromAnotherProcess drives the real TUI program (ui.New,
// wired as main wires it: the service holds the index) on a bank while a
// second process (this test binary run again, see otherProcess) makes the
// service calls of the search, retrieve, import proposals and decide
// commands: every call succeeds, and within 2 s the TUI shows the imported
// proposal ("1 new proposal", the counter up) and drops the decided one
// with a notice naming the operator and verb. (The CLI itself, beside an
// open TUI in a real terminal, is TestTUIAndCLIShareTheBank in main.)
func TestLiveChangesFromAnotherProcess(t *testing.T) {
	t.Parallel()
	dir := uitest.SampleDir(t)
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := app.New(st, app.Options{Operator: "tester"})
	t.Cleanup(func() { svc.Close() })
	if err := svc.HoldIndex(3 * time.Second); err != nil {
		t.Fatalf("hold the index: %v", err)
	}
	deps := common.Deps{Service: svc, BankName: "sample", Operator: "tester",
		Log: log.New(io.Discard, "", 0)}
	queue, err := st.Queue()
	if err != nil || len(queue) != 15 {
		t.Fatalf("queue: %d, %v", len(queue), err)
	}
	last := queue[len(queue)-1].ID

	s := start(t, deps, 200, 60)
	s.waitFor("Review 1/15")
	mr := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(os.Args[0], append([]string{dir}, args...)...)
		cmd.Env = append(os.Environ(), otherProcessEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("memreview %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := mr("search", "stars"); !strings.Contains(out, "mem_") {
		t.Errorf("search printed no record:\n%s", out)
	}
	if out := mr("retrieve", "count reviewed electronics"); !strings.Contains(out, "mem_") {
		t.Errorf("retrieve printed no record:\n%s", out)
	}

	p := queue[0]
	p.ID, p.Status = "prop_9001", review.Pending
	if p.Record != nil {
		rec := *p.Record
		rec.Lemma = "Live: a proposal imported from another shell."
		p.Record = &rec
	}
	line, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "props.jsonl")
	if err := os.WriteFile(file, append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	mr("import", "proposals", file)
	s.waitFor("Review 1/16", "1 new proposal")

	mr("decide", "--note", "seen from the shell", last, "reject")
	s.waitFor("Review 1/15", last+" left the queue: reject by shell elsewhere")
	s.quit()
}

// otherProcessEnv makes the test binary the second process of
// TestLiveChangesFromAnotherProcess (TestMain), with the bank and a command
// and its arguments as its arguments.
const otherProcessEnv = "MEMREVIEW_UI_OTHER_PROCESS"

// otherProcess opens the bank as operator "shell" and makes the service
// calls the memreview command of that name makes, printing what it found.
func otherProcess(args []string) int {
	svc, err := app.Open(context.Background(), args[0], app.Options{Operator: "shell"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer svc.Close()
	err = func() error {
		switch args[1] {
		case "search":
			res, err := svc.Search(app.SearchRequest{Query: args[2], Type: "record", Size: 10})
			if err != nil {
				return err
			}
			for _, h := range res.Hits {
				fmt.Println(h.ID)
			}
		case "retrieve":
			got, err := svc.Retrieve(app.RetrieveRequest{Task: args[2], Client: "cli"})
			if err != nil {
				return err
			}
			for _, r := range got {
				fmt.Println(r.Record.ID)
			}
		case "import": // import proposals FILE
			f, err := os.Open(args[3])
			if err != nil {
				return err
			}
			defer f.Close()
			res, err := svc.Import(context.Background(), args[2], []app.ImportInput{{Name: args[3], R: f}}, app.ImportOptions{Actor: "shell"})
			if err != nil {
				return err
			}
			fmt.Println("imported", res.Count, args[2])
			return nil
		case "decide": // decide --note NOTE ID VERB
			d, err := svc.Decide(context.Background(), review.DecideRequest{Proposal: args[4], Verb: review.Verb(args[5]),
				Operator: "shell", Note: args[3]})
			if err != nil {
				return err
			}
			fmt.Println(d.ID)
		default:
			return fmt.Errorf("unknown command %q", args[1])
		}
		return nil
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
