package probe

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

const secret = "TOP-SECRET-7f3a9c"

// hostileTree builds outer/{secret.txt, root/…} and returns the root: a
// folder with links out, a link loop, a FIFO, a 2 GB sparse file, a binary
// file and a large text file.
func hostileTree(t *testing.T) (root, outer string) {
	t.Helper()
	outer = t.TempDir()
	root = filepath.Join(outer, "root")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(outer, "secret.txt"), []byte(secret+"\n"), 0o644))
	must(os.MkdirAll(filepath.Join(root, "sub", "deep"), 0o755))
	must(os.WriteFile(filepath.Join(root, "sub", "deep", "notes.txt"), []byte("alpha\nbeta\n"), 0o644))
	must(os.Symlink(filepath.Join(outer, "secret.txt"), filepath.Join(root, "link_out")))
	must(os.Symlink("../secret.txt", filepath.Join(root, "link_rel")))
	must(os.Symlink(outer, filepath.Join(root, "dirlink")))
	must(os.Symlink("loop2", filepath.Join(root, "loop1")))
	must(os.Symlink("loop1", filepath.Join(root, "loop2")))
	must(syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	f, err := os.Create(filepath.Join(root, "sparse.bin"))
	must(err)
	must(f.Truncate(2 << 30))
	must(f.Close())
	must(os.WriteFile(filepath.Join(root, "bin.dat"), []byte("abc\x00def"), 0o644))
	big := strings.Repeat("the quick brown fox jumps over the lazy dog\n", 60000) // ~2.6 MB
	must(os.WriteFile(filepath.Join(root, "big.txt"), []byte(big), 0o644))
	return root, outer
}

func TestFilesHostile(t *testing.T) {
	t.Parallel()
	root, outer := hostileTree(t)
	env := Env{Name: "tree", Kind: KindFiles, Path: root}
	refused := []struct {
		input string
		want  string
	}{
		{"read ../secret.txt", "outside"},
		{"read sub/../../secret.txt", "outside"},
		{"read sub/deep/../../../secret.txt", "outside"},
		{"read sub/deep/../../../../../../../etc/passwd", "outside"},
		{`read "../secret.txt"`, "outside"},
		{`read '..'/secret.txt`, "outside"},
		{"ls ..", "outside"},
		{"ls sub/../..", "outside"},
		{"stat ../secret.txt", "outside"},
		{"csv ../secret.txt", "outside"},
		{"grep TOP ..", "outside"},
		{"read " + filepath.Join(outer, "secret.txt"), "absolute"},
		{"read /etc/passwd", "absolute"},
		{"ls /", "absolute"},
		{"read /proc/self/environ", "absolute"},
		{"grep . /proc/self", "absolute"},
		{"read ../../../../../../proc/self/environ", "outside"},
		{"read link_out", "symbolic link"},
		{"read link_rel", "symbolic link"},
		{"csv link_out", "symbolic link"},
		{"grep TOP link_out", "symbolic link"},
		{"ls dirlink", "symbolic link"},
		{"read dirlink/secret.txt", "symbolic link"},
		{"grep TOP dirlink", "symbolic link"},
		{"read loop1", "symbolic link"},
		{"stat loop1/x", "symbolic link"},
		{"read fifo", "named pipe"},
		{"csv fifo", "named pipe"},
		{"grep x fifo", "named pipe"},
		{"read sub", "dir"},
	}
	for _, c := range refused {
		start := time.Now()
		r := Run(context.Background(), env, c.input, Limits{Timeout: 2 * time.Second})
		if !strings.HasPrefix(r.Error, "refused: ") || !strings.Contains(r.Error, c.want) {
			t.Errorf("%s: error = %q, want a refusal mentioning %q", c.input, r.Error, c.want)
		}
		if time.Since(start) > time.Second {
			t.Errorf("%s took %s", c.input, time.Since(start))
		}
		noSecret(t, r)
	}

	t.Run("whole-tree grep skips links, FIFOs and binary files", func(t *testing.T) {
		r := Run(context.Background(), env, "grep -i top .", Limits{})
		if r.Error != "" || r.Text != "(skipped 1 files larger than 64 MiB)\n" {
			t.Errorf("got error %q, text %q", r.Error, r.Text)
		}
		noSecret(t, r)
		r = Run(context.Background(), env, "grep alpha", Limits{})
		if r.Error != "" || r.Text != "sub/deep/notes.txt:1: alpha\n(skipped 1 files larger than 64 MiB)\n" {
			t.Errorf("got error %q, text %q", r.Error, r.Text)
		}
	})
	t.Run("ls shows links without following them", func(t *testing.T) {
		r := Run(context.Background(), env, "ls", Limits{})
		want := [][]any{
			{"big.txt", "file", int64(2640000)},
			{"bin.dat", "file", int64(7)},
			{"dirlink", "symbolic link", nil},
			{"fifo", "named pipe (FIFO)", nil},
			{"link_out", "symbolic link", nil},
			{"link_rel", "symbolic link", nil},
			{"loop1", "symbolic link", nil},
			{"loop2", "symbolic link", nil},
			{"sparse.bin", "file", int64(2 << 30)},
			{"sub", "dir", nil},
		}
		if r.Error != "" || !reflect.DeepEqual(r.Rows, want) {
			t.Errorf("got error %q, rows\n%#v", r.Error, r.Rows)
		}
	})
	t.Run("2 GB sparse file is described, not read", func(t *testing.T) {
		r := Run(context.Background(), env, "read sparse.bin", Limits{})
		if r.Text != "binary file, 2147483648 bytes" || r.Error != "" {
			t.Errorf("got text %q, error %q", r.Text, r.Error)
		}
		r = Run(context.Background(), env, "grep . sparse.bin", Limits{})
		if r.Text != "(skipped 1 files larger than 64 MiB)\n" || r.Error != "" {
			t.Errorf("grep: got text %q, error %q", r.Text, r.Error)
		}
		if r := Run(context.Background(), env, "csv sparse.bin", Limits{}); !strings.Contains(r.Error, "binary") {
			t.Errorf("csv: error %q, want binary", r.Error)
		}
	})
	t.Run("binary file", func(t *testing.T) {
		r := Run(context.Background(), env, "read bin.dat", Limits{})
		if r.Text != "binary file, 7 bytes" {
			t.Errorf("got %q", r.Text)
		}
	})
	t.Run("match-everything grep stops at the byte cap", func(t *testing.T) {
		for _, pat := range []string{".", ".*", "''"} {
			r := Run(context.Background(), env, "grep "+pat+" big.txt", Limits{MaxBytes: 64 << 10, MaxRows: 1 << 30})
			if r.Error != "" || !r.Truncated || len(r.Text) > 64<<10 || len(r.Text) < 60<<10 {
				t.Errorf("grep %s: error %q, truncated %v, %d bytes", pat, r.Error, r.Truncated, len(r.Text))
			}
		}
		r := Run(context.Background(), env, "grep fox", Limits{MaxRows: 10})
		if !r.Truncated || strings.Count(r.Text, "\n") != 10 {
			t.Errorf("row cap: truncated %v, %d lines", r.Truncated, strings.Count(r.Text, "\n"))
		}
	})
	t.Run("read stops at the byte cap", func(t *testing.T) {
		r := Run(context.Background(), env, "read big.txt", Limits{MaxBytes: 1000})
		if !r.Truncated || len(r.Text) != 1000 {
			t.Errorf("truncated %v, %d bytes", r.Truncated, len(r.Text))
		}
		r = Run(context.Background(), env, "read big.txt --offset 44 --limit 9", Limits{})
		if r.Truncated || r.Text != "the quick" {
			t.Errorf("offset/limit: truncated %v, text %q", r.Truncated, r.Text)
		}
		r = Run(context.Background(), env, "read big.txt --limit 999999999", Limits{MaxBytes: 100})
		if !r.Truncated || len(r.Text) != 100 {
			t.Errorf("limit above the cap: truncated %v, %d bytes", r.Truncated, len(r.Text))
		}
	})
	t.Run("grep stops at the time limit", func(t *testing.T) {
		dir := t.TempDir()
		line := "the quick brown fox jumps over the lazy dog 12345\n"
		if err := os.WriteFile(filepath.Join(dir, "huge.txt"), []byte(strings.Repeat(line, 600000)), 0o644); err != nil {
			t.Fatal(err)
		}
		env := Env{Name: "huge", Kind: KindFiles, Path: dir}
		in := `grep "o[a-z]+ [0-9]+x" huge.txt`
		full := Run(context.Background(), env, in, Limits{Timeout: time.Minute})
		if full.Error != "" || full.Text != "" {
			t.Fatalf("full scan: %q %q", full.Error, full.Text)
		}
		r := Run(context.Background(), env, in, Limits{Timeout: time.Duration(full.DurationMS/10*1e6) + time.Millisecond})
		if !strings.Contains(r.Error, "timed out after") {
			t.Errorf("error %q, want a time-out", r.Error)
		}
		if r.DurationMS > full.DurationMS/2 {
			t.Errorf("stopped after %.0f ms; a full scan takes %.0f ms", r.DurationMS, full.DurationMS)
		}
	})
	t.Run("bad requests", func(t *testing.T) {
		for _, in := range []string{"", "rm -rf .", "read", "read a b", "grep", "grep ( .", `read "x`, "read x --offset -1", "stat"} {
			if r := Run(context.Background(), env, in, Limits{}); r.Error == "" {
				t.Errorf("%q: no error", in)
			}
		}
	})
}

// noSecret fails when the secret file's content appears anywhere in r.
func noSecret(t *testing.T, r Result) {
	t.Helper()
	b, _ := json.Marshal(r)
	if strings.Contains(string(b), secret) {
		t.Errorf("%s: output leaks the file outside the root: %s", r.Input, b)
	}
}
