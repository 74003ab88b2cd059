//go:build unix

package testenv

import (
	"os"
	"syscall"
	"time"
)

// CPUTime is the process's user and system CPU time so far, for
// benchmarks on a loaded machine: the CPU a run spends is steadier than
// its wall time (it counts every goroutine's work, the index's background
// merges included, and not other processes').
func CPUTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// PageFaults is the major and minor page faults of an ended child process.
func PageFaults(ps *os.ProcessState) (major, minor int64) {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Majflt), int64(ru.Minflt)
	}
	return 0, 0
}
