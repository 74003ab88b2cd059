package testenv

import (
	"os"
	"runtime/debug"
	"strings"
)

// testGCPercent is the GOGC a test process runs with: the heap grows to
// five times what is live before a collection, not twice. Test
// processes are short and small (a few hundred MB at most), and the
// indexes they build allocate much; this cuts their CPU by about a
// sixth (BENCHMARKS.md "The test suite").
const testGCPercent = 400

// LessGC makes a test process (and a child process it runs of its own
// binary) collect garbage less often: call it first in TestMain. It
// changes nothing when GOGC is set, or when the process runs benchmarks
// (-test.bench: they measure what the program does, at its GOGC). It
// reads os.Args itself, leaving the flags to m.Run.
func LessGC() {
	if os.Getenv("GOGC") != "" || benchmarking(os.Args[1:]) {
		return
	}
	debug.SetGCPercent(testGCPercent)
}

// benchmarking reports whether args ask the test binary for benchmarks.
func benchmarking(args []string) bool {
	for i, a := range args {
		if a == "--" {
			return false
		}
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		switch {
		case strings.HasPrefix(a, "test.bench="):
			return strings.TrimPrefix(a, "test.bench=") != ""
		case a == "test.bench":
			return i+1 < len(args) && args[i+1] != ""
		}
	}
	return false
}
