package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A libpq key=value connection string given as --bank is refused as not
// a folder, without the password in the message, and nothing is created
// (issue 23 item 24: it was taken for a folder, made by init, and echoed).
func TestBankConnStringRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	conn := filepath.Join(dir, "host=db.example port=5432 password=s3cret dbname=bank")
	for _, args := range [][]string{{"--bank", conn, "init"}, {"--bank", conn, "queue"}, {"--bank", "host=db.example password=s3cret", "queue"}, {"--bank", conn}} {
		r := mr(t, "", args...)
		if r.code != 2 || !strings.Contains(r.stderr, "key=value connection string") || strings.Contains(r.stderr+r.stdout, "s3cret") {
			t.Errorf("%q: exit %d\nstdout %q\nstderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("a refused bank name left %v", entries)
	}
	// A folder whose name merely holds '=' is a folder.
	must(t, mr(t, "", "--bank", filepath.Join(dir, "runs=2"), "init"))
}
