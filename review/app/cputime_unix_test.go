//go:build unix

package app_test

import (
	"syscall"
	"time"
)

// cpuTime is the process's user and system CPU time so far: on a loaded
// machine the CPU a run spends is steadier than its wall time (it counts
// every goroutine's work, the index's background merges included, and
// not other processes').
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
