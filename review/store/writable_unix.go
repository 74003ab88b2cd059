//go:build unix

package store

import "syscall"

// writable reports whether this process may write path (a file, or a
// folder, where SQLite keeps its -wal and -shm files).
func writable(path string) bool {
	return syscall.Access(path, 2 /* W_OK */) == nil
}
