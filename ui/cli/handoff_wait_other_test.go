//go:build !unix

package cli

import (
	"os"
	"time"
)

// waitProcess waits up to d for process pid to end, and reports whether
// it did.
func waitProcess(pid int, d time.Duration) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	done := make(chan struct{})
	go func() {
		_, _ = p.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

func killProcess(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
