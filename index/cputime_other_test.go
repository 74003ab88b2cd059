//go:build !unix

package index

import (
	"os"
	"time"
)

// cpuTime is not measured off unix (benchmarks report 0 cpu-s/op).
func cpuTime() time.Duration { return 0 }

// pageFaults is not measured off unix.
func pageFaults(*os.ProcessState) (major, minor int64) { return 0, 0 }
