//go:build unix

package index

import (
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
