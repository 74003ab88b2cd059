package app

import (
	"math"
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
	held  map[*int64]struct{}
	prior int64
}

// holdMemoryLimit lowers the process's soft memory limit to limit bytes
// (0: leave it) until the returned func is called. GOMEMLIMIT in the
// environment is the operator's and wins.
func holdMemoryLimit(limit int64) (release func()) {
	if limit <= 0 || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	memLimit.Lock()
	defer memLimit.Unlock()
	if len(memLimit.held) == 0 {
		memLimit.held = map[*int64]struct{}{}
		memLimit.prior = debug.SetMemoryLimit(-1)
	}
	h := &limit
	memLimit.held[h] = struct{}{}
	applyMemoryLimit()
	return func() {
		memLimit.Lock()
		defer memLimit.Unlock()
		if _, ok := memLimit.held[h]; !ok {
			return
		}
		delete(memLimit.held, h)
		if len(memLimit.held) == 0 {
			debug.SetMemoryLimit(memLimit.prior)
			return
		}
		applyMemoryLimit()
	}
}

// applyMemoryLimit sets the lowest limit held; memLimit is locked.
func applyMemoryLimit() {
	low := int64(math.MaxInt64)
	for h := range memLimit.held {
		low = min(low, *h)
	}
	debug.SetMemoryLimit(min(low, memLimit.prior))
}
