//go:build unix

package index

import (
	"os"
	"syscall"
	"time"
)

// cpuTime is the process's user and system CPU time so far: on a loaded
// machine the CPU a build spends is steadier than its wall time (it counts
// the merger's and persister's work too, and not other processes').
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pageFaults is the major and minor page faults of an ended child process.
func pageFaults(ps *os.ProcessState) (major, minor int64) {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Majflt), int64(ru.Minflt)
	}
	return 0, 0
}
