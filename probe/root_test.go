package probe

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRootSwappedForLinkIsRefused replaces a files environment's folder
// with a link to another folder after it was added: probes must refuse it,
// not read through it. An environment added as a link keeps working.
func TestRootSwappedForLinkIsRefused(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	d, secret := filepath.Join(base, "D"), filepath.Join(base, "secret")
	for _, dir := range []string{d, secret} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(d, "ok.txt"), []byte("fine\n"), 0o644)
	os.WriteFile(filepath.Join(secret, "passwd"), []byte("root:x:0:0\n"), 0o644)
	abs, link, err := CheckTarget(KindFiles, d)
	if err != nil || link || abs != d {
		t.Fatalf("CheckTarget(%s) = %q, %v, %v", d, abs, link, err)
	}
	env := Env{Name: "d", Kind: KindFiles, Path: d}
	if r := Run(context.Background(), env, "read ok.txt", Limits{}); r.Text != "fine\n" {
		t.Fatalf("before the swap: %+v", r)
	}
	if err := os.Rename(d, d+".real"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, d); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"read passwd", "ls", "grep root", "stat passwd", "csv passwd"} {
		r := Run(context.Background(), env, in, Limits{})
		if !strings.Contains(r.Error, "symbolic link") || strings.Contains(r.Text, "root:x") || len(r.Rows) > 0 {
			t.Errorf("%s through a swapped root: error %q, text %q, rows %v", in, r.Error, r.Text, r.Rows)
		}
		if r.Fingerprint != "" {
			t.Errorf("%s: fingerprint %q taken through the link", in, r.Fingerprint)
		}
	}
	// Added as a link: followed, and said so.
	abs, link, err = CheckTarget(KindFiles, d)
	if err != nil || !link {
		t.Fatalf("CheckTarget(link) = %q, %v, %v", abs, link, err)
	}
	env.Symlink = true
	if r := Run(context.Background(), env, "read passwd", Limits{}); r.Text != "root:x:0:0\n" {
		t.Errorf("an environment added as a link: %+v", r)
	}
	// A sql environment whose file is swapped for a link is refused too.
	db := filepath.Join(base, "a.db")
	writeSQL(t, db, "CREATE TABLE t(x)")
	os.Rename(db, db+".real")
	os.Symlink(db+".real", db)
	if r := Run(context.Background(), Env{Name: "a", Kind: KindSQL, Path: db}, "SELECT 1", Limits{}); !strings.Contains(r.Error, "symbolic link") {
		t.Errorf("sql through a link: %+v", r)
	}
}

// TestCheckTargetRefusesSystemAndSpecialFiles: /, /proc, /sys, /dev, what
// is under them, FIFOs and devices are never environments.
func TestCheckTargetRefusesSystemAndSpecialFiles(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "x.db")
	writeSQL(t, db, "CREATE TABLE t(x)")
	cases := []struct {
		kind Kind
		path string
	}{
		{KindFiles, "/"}, {KindFiles, "/proc"}, {KindFiles, "/sys"}, {KindFiles, "/dev"},
		{KindFiles, "/proc/self"}, {KindSQL, "/dev/zero"}, {KindSQL, "/proc/self/mem"},
		{KindSQL, "/dev/null"}, {KindSQL, fifo}, {KindFiles, fifo},
		{KindSQL, dir}, {KindFiles, db},
	}
	for _, c := range cases {
		if _, err := os.Lstat(c.path); err != nil {
			continue // not on this system
		}
		if _, _, err := CheckTarget(c.kind, c.path); err == nil {
			t.Errorf("CheckTarget(%s, %s) accepted it", c.kind, c.path)
		}
		if r := Run(context.Background(), Env{Name: "x", Kind: c.kind, Path: c.path}, "ls", Limits{}); r.Error == "" {
			t.Errorf("Run on %s %s succeeded: %+v", c.kind, c.path, r)
		}
	}
	if _, _, err := CheckTarget(KindSQL, db); err != nil {
		t.Errorf("a database file: %v", err)
	}
	if _, _, err := CheckTarget(KindFiles, dir); err != nil {
		t.Errorf("a folder: %v", err)
	}
}
