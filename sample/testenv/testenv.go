// Package testenv decides what a test does when an input it needs is
// absent from this machine (the shared real data, a tool): it skips with
// the message saying how to run it, except under MEMREVIEW_CI=1, which
// .ci/run sets, where it fails, so that CI never passes by skipping.
package testenv

import (
	"os"
	"testing"
)

// CI reports whether the tests run under .ci/run (MEMREVIEW_CI=1).
func CI() bool { return os.Getenv("MEMREVIEW_CI") == "1" }

// Missing stops t because an input is absent: msg says what and how to
// provide it. It skips, or fails under CI.
func Missing(t testing.TB, msg string) {
	t.Helper()
	if CI() {
		t.Fatalf("%s (MEMREVIEW_CI=1: a failure, not a skip)", msg)
		return
	}
	t.Skip(msg)
}

// BenchBank is the bank folder MEMREVIEW_BENCH_BANK names for a benchmark
// that runs on an existing bank; without it b skips, saying how to make
// one (what says what the benchmark does to it, e.g. "it may change").
// Benchmarks never run under CI, so this skips there too.
func BenchBank(b testing.TB, what string) string {
	b.Helper()
	dir := os.Getenv("MEMREVIEW_BENCH_BANK")
	if dir == "" {
		b.Skip("set MEMREVIEW_BENCH_BANK to a bank " + what + " (memreview sample gen --records 100000 DIR)")
	}
	return dir
}
