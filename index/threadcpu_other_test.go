//go:build !linux

package index

import "time"

// threadCPU is not measured off Linux (benchmarks report 0 cpu quantiles).
func threadCPU() time.Duration { return 0 }
