//go:build unix

package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockFor takes the lock bbolt takes on the index's root.bolt (an
// exclusive flock), waiting up to wait, so that the index's files can be
// checked while no other process writes them. It returns the release
// function, ErrInUse when another process keeps the lock, and a no-op
// when the index has no root.bolt yet.
func lockFor(dir string, wait time.Duration) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, "store", "root.bolt"), os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return func() {}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", dir, err)
	}
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, fmt.Errorf("open index %s: %w", dir, ErrInUse)
			}
			return nil, fmt.Errorf("lock index %s: %w", dir, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

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
