package cli

import (
	"regexp"
	"strconv"
	"testing"
	"time"
)

// handOffLine is what a command prints when it hands the index's
// catch-up to another process (handOffIndex).
var handOffLine = regexp.MustCompile(`the index's catch-up goes on in process (\d+)`)

// handOffPid is the process r handed the index's catch-up to; 0 if none.
func handOffPid(r result) int {
	m := handOffLine.FindStringSubmatch(r.stderr)
	if m == nil {
		return 0
	}
	pid, _ := strconv.Atoi(m[1])
	return pid
}

// handOffWait is how long a test waits for a hand-off process to end.
const handOffWait = 2 * time.Minute

// waitHandOff waits until the process r handed the index's catch-up to,
// if any, has ended: it writes the bank's index folder, so a test that
// reads that folder, or removes it (t.TempDir's cleanup), waits for it
// first. One that is still running after handOffWait is killed and the
// test fails.
func waitHandOff(t *testing.T, r result) {
	t.Helper()
	pid := handOffPid(r)
	if pid == 0 {
		return
	}
	if !waitProcess(pid, handOffWait) {
		killProcess(pid)
		t.Errorf("the index hand-off process %d still runs after %v; killed", pid, handOffWait)
	}
}
