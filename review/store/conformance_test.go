package store_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/review/store/storetest"
	"github.com/memreview/memreview/sample/testenv"
)

// newSQLite gives a fresh SQLite store, closed when t ends: the backend
// the storetest suites run on.
func newSQLite(t *testing.T) storetest.Store {
	s, err := store.Create(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// The conformance suite on the SQLite store.
func TestConformance(t *testing.T) { storetest.Run(t, newSQLite) }

// durableBankEnv names the bank the durability child decides on.
const durableBankEnv = "MEMREVIEW_STORETEST_DURABLE_BANK"

func TestMain(m *testing.M) {
	testenv.LessGC()
	if dir := os.Getenv(durableBankEnv); dir != "" {
		s, err := store.Open(dir, store.Options{})
		if err == nil {
			err = storetest.DurableChild(s, os.Stdout)
		}
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Decisions survive kill -9 of the process that made them.
func TestConformanceDurability(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := store.Create(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	storetest.Durability(t, func(t *testing.T) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), durableBankEnv+"="+dir)
		cmd.Stderr = os.Stderr
		return cmd
	}, func(t *testing.T) storetest.Store {
		s, err := store.Open(dir, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
