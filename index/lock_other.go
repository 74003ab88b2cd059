//go:build !unix

package index

import "time"

// lockFor is a no-op where flock is not available: the segment check then
// runs unlocked, which can only mistake a segment being written by
// another process for a damaged one.
func lockFor(string, time.Duration) (func(), error) { return func() {}, nil }

// buildLock is a no-op where flock is not available: two processes
// building a missing index at once can then collide.
func buildLock(string) (func(), error) { return func() {}, nil }
