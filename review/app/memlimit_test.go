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
	cur := func() int64 { return debug.SetMemoryLimit(-1) }

	a := holdMemoryLimit(1800 * mib)
	if got := cur(); got != 1800*mib {
		t.Fatalf("held 1800 MiB: limit %d MiB", got/mib)
	}
	b := holdMemoryLimit(900 * mib)
	if got := cur(); got != 900*mib {
		t.Fatalf("two runs, 1800 and 900 MiB: limit %d MiB, want the lower", got/mib)
	}
	b()
	b() // twice: a no-op
	if got := cur(); got != 1800*mib {
		t.Fatalf("the 900 MiB run ended: limit %d MiB, want 1800 back", got/mib)
	}
	a()
	if got := cur(); got != 4000*mib {
		t.Fatalf("every run ended: limit %d MiB, want the process's 4000 back", got/mib)
	}
	// A limit above the process's own never raises it.
	c := holdMemoryLimit(8000 * mib)
	if got := cur(); got != 4000*mib {
		t.Errorf("held 8000 MiB under a 4000 MiB process: limit %d MiB", got/mib)
	}
	c()
	none := holdMemoryLimit(0)
	if got := cur(); got != 4000*mib {
		t.Errorf("memory_limit_mb = -1: limit %d MiB, want it untouched", got/mib)
	}
	none()

	t.Setenv("GOMEMLIMIT", "3GiB")
	d := holdMemoryLimit(1800 * mib)
	if got := cur(); got != 4000*mib {
		t.Errorf("GOMEMLIMIT set: limit %d MiB, want the operator's left alone", got/mib)
	}
	d()
}
