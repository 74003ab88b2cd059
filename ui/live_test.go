package ui

import (
	"encoding/json"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/service"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// TestLiveChangesFromAnotherProcess drives the real TUI program (ui.New,
// wired as main wires it: the service holds the index) on a bank while the
// built binary, in a second process, runs search, retrieve, import
// proposals and decide: every command succeeds, and within 2 s the TUI
// shows the imported proposal ("1 new proposal", the counter up) and drops
// the decided one with a notice naming the operator and verb.
func TestLiveChangesFromAnotherProcess(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "memreview")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/memreview/memreview").CombinedOutput(); err != nil {
		t.Fatalf("build the binary: %v\n%s", err, out)
	}
	dir := uitest.SampleDir(t)
	st, err := review.Open(dir, review.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.OpenStore(st, service.Options{Operator: "tester"})
	t.Cleanup(func() { svc.Close() })
	if _, err := svc.HoldIndex(3 * time.Second); err != nil {
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
		cmd := exec.Command(bin, append([]string{"--bank", dir}, args...)...)
		cmd.Env = append(os.Environ(), "MEMREVIEW_OPERATOR=shell")
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
