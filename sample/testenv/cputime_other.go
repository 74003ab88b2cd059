//go:build !unix

package testenv

import (
	"os"
	"time"
)

// CPUTime is not measured off unix: benchmarks report 0.
func CPUTime() time.Duration { return 0 }

// PageFaults is not measured off unix.
func PageFaults(*os.ProcessState) (major, minor int64) { return 0, 0 }
