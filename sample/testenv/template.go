package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Template is a folder many tests of one process start from (a bank, a
// sample world): built the first time a test asks for it, by Build into
// a new folder, and copied into each test's own folder — a copy costs
// milliseconds, a build hundreds. A failed build fails every test that
// asks. Remove deletes what was built: TestMain calls it after m.Run.
type Template struct {
	Name  string                 // says which template in a failure
	Build func(dir string) error // writes the template into dir, which does not exist yet

	once sync.Once
	root string // the temporary folder dir is in
	dir  string
	err  error
}

// CopyTo copies the template into dir, which must not exist.
func (tp *Template) CopyTo(t testing.TB, dir string) {
	t.Helper()
	if err := os.CopyFS(dir, os.DirFS(tp.built(t))); err != nil {
		t.Fatalf("copy the %s template: %v", tp.Name, err)
	}
}

// Copy copies the template into a new folder of t and returns it.
func (tp *Template) Copy(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), tp.Name)
	tp.CopyTo(t, dir)
	return dir
}

// built builds the template once and returns its folder.
func (tp *Template) built(t testing.TB) string {
	t.Helper()
	tp.once.Do(func() {
		tp.root, tp.err = os.MkdirTemp("", "memreview-template-")
		if tp.err != nil {
			return
		}
		tp.dir = filepath.Join(tp.root, tp.Name)
		if err := tp.Build(tp.dir); err != nil {
			tp.err = fmt.Errorf("build: %w", err)
		}
	})
	if tp.err != nil {
		t.Fatalf("the %s template: %v", tp.Name, tp.err)
	}
	return tp.dir
}

// Remove deletes the built template, if it was built.
func (tp *Template) Remove() {
	if tp.root != "" {
		os.RemoveAll(tp.root)
	}
}
