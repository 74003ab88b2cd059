package cli

import (
	"fmt"
	"os"
	"os/exec"
	"time"
)

// handOffIndex starts 'memreview index --until-caught-up' on the same bank,
// detached from this process, to finish a catch-up or build of the index
// that this one-shot command took over and is about to let go: the command
// answers at once, and the work is neither waited for nor lost. Its output
// goes nowhere; a failure to start it only means the next process that
// needs the index starts the work again.
func (c *call) handOffIndex() {
	if c.holdsIndex {
		return // the index command itself: it is the process that finishes
	}
	self, err := os.Executable()
	if err != nil {
		return
	}
	cmd := exec.Command(self, "--bank", c.bank, "--operator", c.operator, "index", "--until-caught-up")
	cmd.Env = os.Environ()
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return
	}
	fmt.Fprintf(c.stderr, "memreview: the index's catch-up goes on in process %d\n", cmd.Process.Pid)
	cmd.Process.Release()
}

// handOffAfter is MEMREVIEW_INDEX_HANDOFF_AFTER: how long a command lets
// a catch-up it started run before it hands the rest to another process
// (a Go duration; "0s" hands off at once, for scripts that want the
// command back at once). Unset or unreadable: the service's default.
func handOffAfter() time.Duration {
	d, err := time.ParseDuration(os.Getenv("MEMREVIEW_INDEX_HANDOFF_AFTER"))
	switch {
	case err != nil:
		return 0
	case d <= 0:
		return -1
	}
	return d
}
