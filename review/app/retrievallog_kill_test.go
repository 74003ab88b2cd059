package app_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/memreview/memreview/review/app"
)

// retrieveChild retrieves from 8 goroutines until its parent kills it,
// printing "logged TASKID" as each Retrieve returns.
func retrieveChild(svc *app.Service) int {
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			for i := 0; ; i++ {
				id := fmt.Sprintf("kill-%d-%d", g, i)
				if _, err := svc.Retrieve(app.RetrieveRequest{Task: "how are prices stored", TaskID: id, Client: "kill"}); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				fmt.Fprintln(out, "logged", id)
				out.Flush()
				mu.Unlock()
			}
		}()
	}
	fmt.Fprintln(os.Stderr, "retrieve:", <-errs)
	return 1
}

// TestRetrievalLogSurvivesKill: the retrieval log is group-committed (the
// retrievals that arrive while one commit is in flight share the next),
// but each Retrieve returns only once its retrieval is committed. So a
// kill -9 of a process retrieving from 8 goroutines loses no retrieval
// it acknowledged: every task id the child printed is in the log when
// the bank is opened again, each once. (One in flight may be lost: it was
// never acknowledged.)
func TestRetrievalLogSurvivesKill(t *testing.T) {
	t.Parallel()
	dir := bankCopy(t)
	cmd, lines := startChild(t, "retrieve", dir, 0)
	acked := map[string]bool{}
	deadline := time.Now().Add(30 * time.Second)
	for len(acked) < 150 && lines.Scan() {
		if id, ok := strings.CutPrefix(lines.Text(), "logged "); ok {
			acked[id] = true
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child acknowledged %d retrievals in 30 s", len(acked))
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() { // printed before the kill, still in the pipe
		if id, ok := strings.CutPrefix(lines.Text(), "logged "); ok {
			acked[id] = true
		}
	}
	cmd.Wait()
	if len(acked) < 150 {
		t.Fatalf("the child acknowledged only %d retrievals", len(acked))
	}
	svc, err := app.Open(context.Background(), dir, app.Options{Operator: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	logged, err := svc.Retrievals(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range logged {
		if strings.HasPrefix(r.TaskID, "kill-") {
			seen[r.TaskID]++
			if len(r.Records) == 0 || r.Client != "kill" {
				t.Errorf("retrieval %s logged as %+v", r.TaskID, r)
			}
		}
	}
	for id := range acked {
		if seen[id] != 1 {
			t.Errorf("acknowledged retrieval %s is in the log %d times", id, seen[id])
		}
	}
	t.Logf("%d retrievals acknowledged before the kill, %d in the log", len(acked), len(seen))
}
