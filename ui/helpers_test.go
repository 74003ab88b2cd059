package ui

import (
	"os"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

func TestMain(m *testing.M) {
	if os.Getenv(otherProcessEnv) == "1" {
		os.Exit(otherProcess(os.Args[1:]))
	}
	uitest.Main(m)
}

// world is a fresh copy of the sample bank, opened as the program opens it.
type world struct {
	dir   string
	store *store.Store // behind deps.Service, for checking what was committed
	deps  common.Deps
}

// newWorld copies the sample world (generated once per test process) into
// a temp dir and opens it. The store's clock is fixed so decisions are
// deterministic.
func newWorld(tb testing.TB) *world {
	tb.Helper()
	w := &world{dir: uitest.SampleDir(tb)}
	w.open(tb)
	return w
}

var fixedNow = time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)

func (w *world) open(tb testing.TB) {
	tb.Helper()
	w.deps = uitest.OpenBank(tb, w.dir, store.Options{Now: func() time.Time { return fixedNow }})
	w.store = uitest.Store(tb, w.deps)
}

// reopen opens the bank again from disk (the earlier handles close when
// the test ends).
func (w *world) reopen(tb testing.TB) {
	w.deps.Service.Close()
	w.open(tb)
}

// drive feeds msg to model and runs the Cmds it returns synchronously
// (uitest.Drive: heartbeats dropped, debounces fired at once).
func drive(tb testing.TB, model tea.Model, msg tea.Msg) tea.Model {
	tb.Helper()
	return uitest.DriveModel(tb, model, msg)
}

// started returns the root model sized w×h with the queue and the first
// proposal loaded.
func started(tb testing.TB, deps common.Deps, w, h int) tea.Model {
	tb.Helper()
	m := New(deps)
	for _, msg := range uitest.Run(m.Init()) {
		m = drive(tb, m, msg)
	}
	return drive(tb, m, tea.WindowSizeMsg{Width: w, Height: h})
}
