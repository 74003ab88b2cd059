package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// A template is built once however many tests copy it, each copy is the
// test's own, and Remove deletes the build.
func TestTemplate(t *testing.T) {
	builds := 0
	tp := &Template{Name: "bank", Build: func(dir string) error {
		builds++
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "f"), []byte("built"), 0o644)
	}}
	a, b := tp.Copy(t), tp.Copy(t)
	if builds != 1 || a == b {
		t.Fatalf("%d builds, copies %s and %s", builds, a, b)
	}
	if err := os.WriteFile(filepath.Join(a, "f"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(b, "f")); err != nil || string(got) != "built" {
		t.Fatalf("the second copy holds %q, %v", got, err)
	}
	built := tp.dir
	tp.Remove()
	if _, err := os.Stat(built); !os.IsNotExist(err) {
		t.Fatalf("after Remove the build is still there: %v", err)
	}
}
