package app

import (
	"os"
	"runtime/debug"
	"sync"
)

// The soft memory limit a hygiene run holds the process to (memreview.toml
// [hygiene] memory_limit_mb). Runs may overlap (the TUI's H and an MCP
// client's, say): the lowest limit asked for holds while any runs, and the
// process's own limit comes back when the last one ends.
var memLimit struct {
	sync.Mutex
	held  map[int64]int // limit → runs holding it
	prior int64
}

// holdMemoryLimit lowers the process's soft memory limit to limit bytes
// (0: leave it) until the returned func is called (once; again is a
// no-op). GOMEMLIMIT in the environment is the operator's and wins.
func holdMemoryLimit(limit int64) (release func()) {
	if limit <= 0 || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	memLimit.Lock()
	defer memLimit.Unlock()
	if len(memLimit.held) == 0 {
		memLimit.held = map[int64]int{}
		memLimit.prior = debug.SetMemoryLimit(-1)
	}
	memLimit.held[limit]++
	applyMemoryLimit()
	return sync.OnceFunc(func() {
		memLimit.Lock()
		defer memLimit.Unlock()
		if memLimit.held[limit]--; memLimit.held[limit] == 0 {
			delete(memLimit.held, limit)
		}
		applyMemoryLimit()
	})
}

// applyMemoryLimit sets the lowest limit held, never above the process's
// own, or the process's own when none is; memLimit is locked.
func applyMemoryLimit() {
	low := memLimit.prior
	for l := range memLimit.held {
		low = min(low, l)
	}
	debug.SetMemoryLimit(low)
}
