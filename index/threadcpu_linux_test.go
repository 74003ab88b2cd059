//go:build linux

package index

import (
	"syscall"
	"time"
)

// rusageThread is Linux's RUSAGE_THREAD: the calling thread only.
const rusageThread = 1

// threadCPU is the CPU time of the calling thread so far. A benchmark that
// locks its goroutine to its thread can time one query's own CPU with it,
// which other processes on a loaded machine change far less than its wall
// time.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(rusageThread, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
