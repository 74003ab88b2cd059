package testenv

import (
	"flag"
	"runtime"
	"strconv"
)

// RunAtOnce lets n parallel tests run at once in this test process
// (-parallel's default is GOMAXPROCS) unless -parallel was given. For a
// TestMain whose tests mostly wait — on the processes they start, on
// PostgreSQL, on the disk, on a terminal program's next frame — so that
// running only as many as there are cores would leave the cores idle.
// It parses the flags, as TestMain may.
func RunAtOnce(n int) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given && runtime.GOMAXPROCS(0) < n {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}
