//go:build unix

package cli

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// waitProcess waits up to d for process pid, not a child of this one, to
// end, and reports whether it did.
func waitProcess(pid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for processRuns(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// processRuns reports whether process pid exists and is not a zombie (a
// hand-off process outlives its parent; whoever adopts it reaps it).
func processRuns(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc: kill said it exists
	}
	// "pid (comm) state ...": the state follows the last ')'.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

func killProcess(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }
