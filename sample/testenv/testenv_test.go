package testenv

import (
	"testing"
)

// fakeT records whether Missing skipped or failed.
type fakeT struct {
	testing.TB
	skipped, failed bool
}

func (f *fakeT) Helper()               {}
func (f *fakeT) Skip(...any)           { f.skipped = true }
func (f *fakeT) Fatalf(string, ...any) { f.failed = true }

func TestMissingSkipsOrFailsUnderCI(t *testing.T) {
	t.Setenv("MEMREVIEW_CI", "")
	f := &fakeT{}
	Missing(f, "no data")
	if !f.skipped || f.failed {
		t.Fatalf("outside CI: skipped %v failed %v, want a skip", f.skipped, f.failed)
	}
	t.Setenv("MEMREVIEW_CI", "1")
	f = &fakeT{}
	Missing(f, "no data")
	if f.skipped || !f.failed {
		t.Fatalf("under MEMREVIEW_CI=1: skipped %v failed %v, want a failure", f.skipped, f.failed)
	}
}
