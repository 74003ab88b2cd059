package app

import (
	"runtime/debug"
	"testing"
)

func TestHoldMemoryLimit(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	const mib = 1 << 20
	prior := debug.SetMemoryLimit(-1)
	debug.SetMemoryLimit(4000 * mib)
	defer debug.SetMemoryLimit(prior)
	want := func(when string, limitMiB int64) {
		t.Helper()
		if got := debug.SetMemoryLimit(-1); got != limitMiB*mib {
			t.Errorf("%s: limit %d MiB, want %d", when, got/mib, limitMiB)
		}
	}

	a := holdMemoryLimit(1800 * mib)
	want("held 1800 MiB", 1800)
	b := holdMemoryLimit(900 * mib)
	want("two runs, 1800 and 900 MiB (the lower holds)", 900)
	b()
	b() // twice: a no-op
	want("the 900 MiB run ended", 1800)
	a()
	want("every run ended (the process's own back)", 4000)
	e, f := holdMemoryLimit(1200*mib), holdMemoryLimit(1200*mib)
	e()
	want("two runs at 1200 MiB, one ended", 1200)
	f()
	want("both 1200 MiB runs ended", 4000)
	c := holdMemoryLimit(8000 * mib)
	want("8000 MiB held under a 4000 MiB process (never raised)", 4000)
	c()
	none := holdMemoryLimit(0)
	want("memory_limit_mb = -1 (untouched)", 4000)
	none()

	t.Setenv("GOMEMLIMIT", "3GiB")
	d := holdMemoryLimit(1800 * mib)
	want("GOMEMLIMIT set (the operator's left alone)", 4000)
	d()
}
