//go:build !unix

package index

import "time"

// cpuTime is not measured off unix (benchmarks report 0 cpu-s/op).
func cpuTime() time.Duration { return 0 }
