package testenv

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A bank is built once; a build that fails is not marked complete and is
// built again next time.
func TestBuildOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bank")
	write := func(tmp string) error {
		if err := os.MkdirAll(tmp, 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, "bank.db"), []byte("a bank"), 0o644)
	}
	if built, err := BuildOnce(dir, func(tmp string) error { write(tmp); return errors.New("cut short") }); err == nil || built || Built(dir) {
		t.Fatalf("a failed finish: built %v, err %v, complete %v", built, err, Built(dir))
	}
	calls := 0
	build := func(tmp string) error { calls++; return write(tmp) }
	for i := range 2 {
		built, err := BuildOnce(dir, build)
		if err != nil || built != (i == 0) || !Built(dir) {
			t.Fatalf("call %d: built %v, err %v, complete %v", i, built, err, Built(dir))
		}
	}
	if calls != 1 {
		t.Fatalf("the bank was built %d times, want once", calls)
	}
}
