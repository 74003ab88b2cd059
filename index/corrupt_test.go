package index

import (
	"crypto/rand"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
)

// spoilers damage one file of a built index in the ways a crash, a bad disk
// or an attack leave it: cut short, emptied, removed, overwritten in the middle with
// random bytes (dd … seek=2 count=4 conv=notrunc) or replaced with them.
var spoilers = []struct {
	name  string
	spoil func(path string, size int64) error
}{
	{"truncated", func(p string, size int64) error { return os.Truncate(p, size/2) }},
	{"emptied", func(p string, _ int64) error { return os.Truncate(p, 0) }},
	{"deleted", func(p string, _ int64) error { return os.Remove(p) }},
	{"random middle", func(p string, size int64) error {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		off := int64(8192)
		if off >= size {
			off = size / 4
		}
		buf := make([]byte, max(min(16384, size-off), 16))
		_, _ = rand.Read(buf)
		_, err = f.WriteAt(buf, off)
		return err
	}},
	{"random whole", func(p string, size int64) error {
		buf := make([]byte, max(size, 64))
		_, _ = rand.Read(buf)
		return os.WriteFile(p, buf, 0o600)
	}},
}

// indexFiles lists the files of a closed index, relative to dir.
func indexFiles(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	files := map[string]int64{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[rel] = info.Size()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestCorruptIndexRebuilds damages every file of the index in turn, each
// in every way of spoilers, and checks that Open rebuilds it (or, where the
// damage is not seen at open, that search and sync still answer rightly
// or fail with an error — never a panic).
func TestCorruptIndexRebuilds(t *testing.T) {
	t.Parallel()
	src := sampleBank()
	base := filepath.Join(t.TempDir(), "index")
	ix, err := Open(base, src)
	if err != nil {
		t.Fatal(err)
	}
	// A second segment, so that more than one .zap exists.
	src.putRecord(review.Record{ID: "mem_9", Lemma: "Refunds above forty dollars need a manager.", Category: review.Fact})
	if err := ix.Sync(); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	files := indexFiles(t, base)
	var names []string
	for f := range files {
		names = append(names, f)
	}
	slices.Sort(names)
	var zaps int
	for _, f := range names {
		if strings.HasSuffix(f, ".zap") {
			zaps++
		}
	}
	if zaps == 0 || files["index_meta.json"] == 0 || files[filepath.Join("store", "root.bolt")] == 0 {
		t.Fatalf("index files %v: want index_meta.json, store/root.bolt and .zap segments", names)
	}
	for _, f := range names {
		for _, sp := range spoilers {
			t.Run(f+"/"+sp.name, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "index")
				if err := os.CopyFS(dir, os.DirFS(base)); err != nil {
					t.Fatal(err)
				}
				if err := sp.spoil(filepath.Join(dir, f), files[f]); err != nil {
					t.Fatal(err)
				}
				ix, err := Open(dir, src)
				if err != nil {
					t.Fatalf("Open after %s %s: %v", sp.name, f, err)
				}
				defer ix.Close()
				if got := search(t, ix, "dollars", "record"); !slices.Equal(got, recs("mem_2", "mem_9")) {
					t.Errorf("search dollars after %s %s: %v, want mem_2 and mem_9", sp.name, f, got)
				}
				src.putRecord(review.Record{ID: "mem_10", Lemma: "Gift cards never expire.", Category: review.Fact})
				defer src.deleteRecord("mem_10")
				if err := ix.Sync(); err != nil {
					t.Fatalf("Sync after %s %s: %v", sp.name, f, err)
				}
				if got := search(t, ix, "gift", "record"); !slices.Equal(got, recs("mem_10")) {
					t.Errorf("search gift after sync: %v, want mem_10", got)
				}
			})
		}
	}
}
