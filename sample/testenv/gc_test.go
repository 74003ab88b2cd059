package testenv

import "testing"

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
