package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
)

// cpuProfileDir, set in the tests' environment, makes every memreview
// process a test starts write a CPU profile of itself into that folder
// (PID.prof; merge them with go tool pprof -proto DIR/*.prof): where the
// CPU of this package's tests goes, which -test.cpuprofile cannot say, as
// it profiles only the test process.
const cpuProfileDir = "MEMREVIEW_TEST_CPUPROFILE_DIR"

// profileCLI starts this process's CPU profile when cpuProfileDir is set
// and returns what stops it; a profile that cannot start is said on stderr
// and the command runs unprofiled.
func profileCLI() (stop func()) {
	dir := os.Getenv(cpuProfileDir)
	if dir == "" {
		return func() {}
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%d.prof", os.Getpid())))
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "memreview test: cpu profile: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
