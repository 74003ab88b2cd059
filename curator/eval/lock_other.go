//go:build !unix

package eval

import "os"

// tryLock is a no-op where flock is missing: two processes could resume
// one run at once there.
func tryLock(*os.File) (bool, error) { return false, nil }

func unlock(*os.File) {}
