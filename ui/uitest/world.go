package uitest

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui/common"
)

// The sample world is generated (and indexed) once per test process into
// template; every test gets its own copy, which costs a few milliseconds
// instead of the ~0.7 s a generation and a first index build take.
var (
	templateOnce sync.Once
	template     string
	templateErr  error
	// mainRan is set by Main, which removes the template when the process
	// ends; without it every run of a package's tests would leave its
	// template (about 1 MB, 26 files) in the temp dir.
	mainRan bool
)

func buildTemplate() {
	dir, err := os.MkdirTemp("", "memreview-uitest-*")
	if err != nil {
		templateErr = err
		return
	}
	template = dir
	if templateErr = sample.Generate(dir, sample.Seed); templateErr != nil {
		return
	}
	s, err := store.Open(dir, store.Options{})
	if err != nil {
		templateErr = err
		return
	}
	ix, err := index.Open(filepath.Join(dir, store.IndexDir), s)
	if err != nil {
		s.Close()
		templateErr = err
		return
	}
	if templateErr = ix.Close(); templateErr != nil {
		s.Close()
		return
	}
	// The bank's offline embedder is trained and every record embedded
	// once here, as OpenBank would do in every test: the copies carry the
	// model, the vectors and the vector index.
	svc := app.New(s, app.Options{Operator: "tester"})
	templateErr = embedAll(svc)
	if err := svc.Close(); templateErr == nil {
		templateErr = err
	}
}

// embedAll makes svc the index's owner and waits until every record of
// its bank has its vector.
func embedAll(svc *app.Service) error {
	if err := svc.HoldIndex(3 * time.Second); err != nil {
		return fmt.Errorf("open the index: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := svc.WaitEmbeddings(ctx, nil); err != nil {
		return fmt.Errorf("embed the bank: %w", err)
	}
	return nil
}

// removeTemplate runs when the test process ends (Main).
func removeTemplate() {
	if template != "" {
		os.RemoveAll(template)
	}
}

// SampleDir returns a fresh copy of the sample bank (bank.db, its index,
// the environments and memreview.toml) in a temp dir of tb.
func SampleDir(tb testing.TB) string {
	tb.Helper()
	if !mainRan {
		tb.Fatalf("uitest.SampleDir needs the package's TestMain to call uitest.Main, which removes the sample world's template when the tests end")
	}
	templateOnce.Do(buildTemplate)
	if templateErr != nil {
		tb.Fatalf("generate the sample world: %v", templateErr)
	}
	dst := tb.TempDir()
	err := filepath.WalkDir(template, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(template, path)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		return copyFile(path, to)
	})
	if err != nil {
		tb.Fatalf("copy the sample world: %v", err)
	}
	return dst
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// OpenSample opens a fresh copy of the sample world (SampleDir) as the
// program does, with opts for the store; both close when the test ends.
func OpenSample(tb testing.TB, opts ...store.Options) common.Deps {
	tb.Helper()
	return OpenBank(tb, SampleDir(tb), opts...)
}

// OpenBank opens the bank in dir as the program does: a service over
// its store that holds the shared index (main.go's runTUI). The Deps carry
// only that service; the store and the index close when the test ends.
func OpenBank(tb testing.TB, dir string, opts ...store.Options) common.Deps {
	tb.Helper()
	var o store.Options
	if len(opts) > 0 {
		o = opts[0]
	}
	s, err := store.Open(dir, o)
	if err != nil {
		tb.Fatalf("open the bank: %v", err)
	}
	svc := app.New(s, app.Options{Operator: "tester"})
	tb.Cleanup(func() { svc.Close() })
	// Every record has its vector before the screens search, so what
	// they show is ranked the same way however loaded the machine is
	// (hybrid, not BM25 alone while the embedder catches up).
	if err := embedAll(svc); err != nil {
		tb.Fatal(err)
	}
	return common.Deps{Service: svc, BankName: "sample", IsSample: true,
		Operator: "tester", Log: log.New(io.Discard, "", 0)}
}

// Store opens d's bank a second time, as another process would: for
// tests that check what was committed or write behind the screens' backs.
// Screens never reach it: Deps has no store. It closes when tb ends.
func Store(tb testing.TB, d common.Deps) *store.Store {
	tb.Helper()
	info := d.Service.Info()
	if info.Team {
		tb.Fatalf("the bank is not a folder bank: %s", info.Where)
	}
	st, err := store.Open(info.Dir, store.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}
