package cli

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/sample/testenv"
)

// The banks many tests start from (testenv.Template), made once per test
// process by the very commands those tests ran themselves before (in this
// process, as mr runs them): the copy is what the commands left and
// nothing more, no index or vector added that they did not write.
var (
	// sampleTemplate is 'memreview sample DIR'.
	sampleTemplate = &testenv.Template{Name: "world", Build: func(dir string) error {
		return runTemplate([]string{"sample", dir}, "")
	}}
	// rawWorldTemplate is sample.Generate's world as it writes it (no
	// index, no embeddings: not what 'memreview sample' leaves), for the
	// tests that start from that.
	rawWorldTemplate = &testenv.Template{Name: "raw-world", Build: func(dir string) error {
		return sample.Generate(dir, sample.Seed)
	}}
	// cliBankTemplate is a new bank with goodRecords imported (newCLIBank).
	cliBankTemplate = &testenv.Template{Name: "bank", Build: func(dir string) error {
		if err := runTemplate([]string{"--bank", dir, "init"}, ""); err != nil {
			return err
		}
		return runTemplate([]string{"--bank", dir, "import", "records", "-"}, goodRecords)
	}}
)

// runTemplate runs one memreview command of a template's build, and waits
// for an index hand-off it starts: one still running would write the
// template while a test copies it.
func runTemplate(args []string, stdin string) error {
	var o, e bytes.Buffer
	if code := Run(context.Background(), args, strings.NewReader(stdin), &o, &e); code != 0 {
		return fmt.Errorf("memreview %q: exit %d: %s", args, code, e.String())
	}
	if pid := handOffPid(result{stderr: e.String()}); pid != 0 && !waitProcess(pid, handOffWait) {
		killProcess(pid)
		return fmt.Errorf("memreview %q: the index hand-off process %d still runs after %v", args, pid, handOffWait)
	}
	return nil
}

// sampleWorld writes the sample world into dir, as 'memreview sample dir'
// does (a copy of what it wrote once).
func sampleWorld(t *testing.T, dir string) {
	t.Helper()
	sampleTemplate.CopyTo(t, dir)
}

// newCLIBank is a new bank holding goodRecords ('memreview init' then
// 'import records'), in a temp folder of t.
func newCLIBank(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bank")
	cliBankTemplate.CopyTo(t, dir)
	return dir
}
