//go:build unix

package bleveext

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// ErrLocked is returned (wrapped) by LockFor when another process holds
// the index's lock.
var ErrLocked = errors.New("the index is locked by another process")

// LockFor takes the lock bbolt takes on a scorch index's root.bolt (an
// exclusive flock), waiting up to wait, so that the index's files can be
// checked while no other process writes them. It returns the release
// function, ErrLocked when another process keeps the lock, and a no-op
// when the index has no root.bolt yet.
func LockFor(dir string, wait time.Duration) (func(), error) {
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
				return nil, fmt.Errorf("open index %s: %w", dir, ErrLocked)
			}
			return nil, fmt.Errorf("lock index %s: %w", dir, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
