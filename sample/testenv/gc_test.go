package testenv

import (
	"flag"
	"runtime"
	"strconv"
	"testing"
)

func TestBenchmarking(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"-test.run=^TestX$", "-test.v"}, false},
		{[]string{"-test.bench=.", "-test.run=^$"}, true},
		{[]string{"--test.bench", "BenchmarkSearch"}, true},
		{[]string{"-test.bench="}, false},
		{[]string{"-test.bench"}, false},
		{[]string{"-test.paniconexit0", "-test.timeout=10m0s", "-test.bench=Sort", "-test.benchtime=1x"}, true},
		{[]string{"--", "-test.bench=."}, false},
	} {
		if got := benchmarking(c.args); got != c.want {
			t.Errorf("benchmarking(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}

// RunAtOnce raises -test.parallel to n when it was not given, and leaves
// it as given otherwise.
func TestRunAtOnce(t *testing.T) {
	f := flag.Lookup("test.parallel")
	before := f.Value.String()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	defer f.Value.Set(before)
	n := runtime.GOMAXPROCS(0) + 3
	RunAtOnce(n)
	want := strconv.Itoa(n)
	if given {
		want = before
	}
	if got := f.Value.String(); got != want {
		t.Fatalf("-test.parallel %s after RunAtOnce(%d) (given: %v, before %s); want %s", got, n, given, before, want)
	}
}
