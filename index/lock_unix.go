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
