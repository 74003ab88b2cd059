package probe

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// FuzzFilesProbe: whatever a files probe is asked, nothing of a file
// outside its root reaches the result — not through "..", absolute
// paths, links out (to a file, to a folder, relative), a link loop or a
// FIFO — and its result always encodes.
func FuzzFilesProbe(f *testing.F) {
	outer := f.TempDir()
	root := filepath.Join(outer, "root")
	for _, err := range []error{
		os.WriteFile(filepath.Join(outer, "secret.txt"), []byte(secret+"\n"), 0o644),
		os.MkdirAll(filepath.Join(root, "sub", "deep"), 0o755),
		os.WriteFile(filepath.Join(root, "sub", "deep", "notes.txt"), []byte("alpha\nbeta TOP\n"), 0o644),
		os.WriteFile(filepath.Join(root, "t.csv"), []byte("a,b\n1,TOP\n"), 0o644),
		os.Symlink(filepath.Join(outer, "secret.txt"), filepath.Join(root, "link_out")),
		os.Symlink("../secret.txt", filepath.Join(root, "sub", "link_rel")),
		os.Symlink(outer, filepath.Join(root, "dirlink")),
		os.Symlink("loop2", filepath.Join(root, "loop1")),
		os.Symlink("loop1", filepath.Join(root, "loop2")),
		syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644),
	} {
		if err != nil {
			f.Fatal(err)
		}
	}
	for _, s := range []string{
		"read ../secret.txt", "read link_out", "read sub/link_rel", "read dirlink/secret.txt", "ls dirlink", "stat dirlink",
		"grep -i top .", "grep -r TOP dirlink", "grep TOP " + filepath.Join(outer, "secret.txt"), "read fifo", "read loop1",
		"ls", "ls sub", "read t.csv", "read sub/deep/notes.txt 2-3", `read "sub/../../secret.txt"`, "count t.csv",
	} {
		f.Add(s)
	}
	env := Env{Name: "tree", Kind: KindFiles, Path: root}
	f.Fuzz(func(t *testing.T, input string) {
		if strings.Contains(input, secret) {
			return // the result names its input
		}
		r := Run(context.Background(), env, input, Limits{Timeout: 2 * time.Second, MaxRows: 50, MaxBytes: 64 << 10})
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("%q: the result does not encode: %v", input, err)
		}
		if strings.Contains(string(out), secret) {
			t.Fatalf("%q read the file outside the root: %s", input, out)
		}
	})
}
