//go:build !unix

package app_test

import "time"

// cpuTime is 0 where getrusage is not to be had.
func cpuTime() time.Duration { return 0 }
