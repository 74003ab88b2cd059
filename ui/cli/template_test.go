package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A template is a bank that many tests start from, made once per test
// process by the very commands those tests ran themselves before (in this
// process, as mr runs them) and copied into each test's folder: the copy
// costs a few milliseconds, the commands (the sample world's generation,
// a new bank's schema) a few hundred. The copy is what the commands left
// and nothing more: no index or vector is added that the commands did not
// write.
type template struct {
	name string
	cmds []templateCmd
	once sync.Once
	dir  string
	err  error
}

// templateCmd is one memreview command of a template: its stdin and its
// arguments after --bank DIR.
type templateCmd struct {
	stdin string
	args  []string
}

// templateRoot holds the templates; TestMain sets it and removes it.
var templateRoot string

var (
	// sampleTemplate is 'memreview sample DIR'.
	sampleTemplate = &template{name: "world", cmds: []templateCmd{{args: []string{"sample"}}}}
	// cliBankTemplate is a new bank with goodRecords imported (newCLIBank).
	cliBankTemplate = &template{name: "bank", cmds: []templateCmd{
		{args: []string{"init"}},
		{stdin: goodRecords, args: []string{"import", "records", "-"}},
	}}
)

// build runs the template's commands once; sample takes its folder as an
// argument, the others take --bank.
func (tp *template) build() {
	tp.dir = filepath.Join(templateRoot, tp.name)
	for _, c := range tp.cmds {
		args := append([]string{"--bank", tp.dir}, c.args...)
		if c.args[0] == "sample" {
			args = []string{"sample", tp.dir}
		}
		var o, e bytes.Buffer
		code := Run(context.Background(), args, strings.NewReader(c.stdin), &o, &e)
		if code != 0 {
			tp.err = fmt.Errorf("memreview %q: exit %d: %s", args, code, e.String())
			return
		}
		// A catch-up handed off would write the template while a test copies it.
		if pid := handOffPid(result{stderr: e.String()}); pid != 0 && !waitProcess(pid, handOffWait) {
			killProcess(pid)
			tp.err = fmt.Errorf("memreview %q: the index hand-off process %d still runs after %v", args, pid, handOffWait)
			return
		}
	}
}

// copyTo copies the template into dir, which must not exist.
func (tp *template) copyTo(t *testing.T, dir string) {
	t.Helper()
	tp.once.Do(tp.build)
	if tp.err != nil {
		t.Fatalf("the %s template: %v", tp.name, tp.err)
	}
	if err := os.CopyFS(dir, os.DirFS(tp.dir)); err != nil {
		t.Fatalf("copy the %s template: %v", tp.name, err)
	}
}

// sampleWorld writes the sample world into dir, as 'memreview sample dir'
// does (a copy of what it wrote once).
func sampleWorld(t *testing.T, dir string) {
	t.Helper()
	sampleTemplate.copyTo(t, dir)
}

// newCLIBank is a new bank holding goodRecords ('memreview init' then
// 'import records'), in a temp folder of t.
func newCLIBank(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bank")
	cliBankTemplate.copyTo(t, dir)
	return dir
}
