//go:build unix

package index

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// buildLock takes an exclusive flock on dir+".lock" for a build of the
// index and its swap into dir, so that two processes that find the index
// missing (or stale) at once never build into the same dir+".new" or
// remove each other's work. It does not wait: while another process
// builds, it returns ErrInUse, as an open of an index another process
// holds does (index/share then waits for that process to serve). The lock
// file stays; the kernel frees the lock when its holder exits or is
// killed. A bank whose folder cannot be written gets a no-op (its build
// fails on its own).
func buildLock(dir string) (func(), error) {
	path := dir + ".lock"
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		if f, err = os.Open(path); err != nil {
			return func() {}, nil
		}
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("open index %s: another process is building it: %w", dir, ErrInUse)
		}
		return nil, fmt.Errorf("lock index build %s: %w", path, err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}
