package cli

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memreview/memreview/review/store"
)

// copyTree copies the directory src to dst (regular files only).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Every index file damaged in turn — root.bolt (random pages, as with
// 'dd if=/dev/urandom … seek=2 count=4 conv=notrunc', and cut in half), each
// segment, index_meta.json — is rebuilt like a missing index: search finds
// what the bank holds, and decide commits and exits 0. Nothing panics.
func TestDamagedIndexFilesRebuild(t *testing.T) {
	t.Parallel()
	base := filepath.Join(t.TempDir(), "base")
	sampleWorld(t, base)
	// The index exists and is caught up (once the process a slow build
	// was handed to has ended).
	waitHandOff(t, must(t, mr(t, "", "--bank", base, "search", "prices")))
	dir := filepath.Join(base, store.IndexDir, "store")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	targets := []string{filepath.Join(store.IndexDir, "index_meta.json")}
	for _, e := range ents {
		if e.Name() == "root.bolt" || strings.HasSuffix(e.Name(), ".zap") {
			targets = append(targets, filepath.Join(store.IndexDir, "store", e.Name()))
		}
	}
	if len(targets) < 3 {
		t.Fatalf("the sample index has too few files to damage: %v", targets)
	}
	damage := map[string]func([]byte) []byte{
		"random bytes": func(b []byte) []byte {
			rng := rand.New(rand.NewPCG(7, 11+uint64(len(b)))) // one per call: the cases run in parallel
			out := append([]byte(nil), b...)
			from := min(len(out), 2*4096)
			if len(out) < 2*4096 {
				from = len(out) / 3
			}
			for i := from; i < len(out) && i < from+4*4096; i++ {
				out[i] = byte(rng.Uint32())
			}
			return out
		},
		"cut in half": func(b []byte) []byte { return b[:len(b)/2] },
	}
	for _, target := range targets {
		for how, fn := range damage {
			t.Run(filepath.Base(target)+"/"+how, func(t *testing.T) {
				t.Parallel()
				bank := filepath.Join(t.TempDir(), "bank")
				copyTree(t, base, bank)
				path := filepath.Join(bank, target)
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, fn(b), 0o644); err != nil {
					t.Fatal(err)
				}
				r := mr(t, "", "--bank", bank, "search", "prices")
				if r.code != 0 || strings.Contains(r.stderr, "panic") || !strings.Contains(r.stdout, "mem_") {
					t.Fatalf("search on a damaged %s: exit %d\nstdout: %s\nstderr: %s", target, r.code, r.stdout, r.stderr)
				}
				if filepath.Base(target) != "root.bolt" || how != "random bytes" {
					return
				}
				// The case: decide after the damage commits and exits 0.
				if err := os.WriteFile(filepath.Join(bank, target), fn(b), 0o644); err != nil {
					t.Fatal(err)
				}
				r = mr(t, "", "--bank", bank, "decide", "prop_0015", "reject")
				if r.code != 0 || strings.Contains(r.stderr, "panic") {
					t.Fatalf("decide on a damaged %s: exit %d\nstdout: %s\nstderr: %s", target, r.code, r.stdout, r.stderr)
				}
				out := must(t, mr(t, "", "--bank", bank, "show", "--json", "prop_0015")).stdout
				if !strings.Contains(out, `"rejected"`) {
					t.Fatalf("the decision is not in the bank: %s", out)
				}
			})
		}
	}
}
