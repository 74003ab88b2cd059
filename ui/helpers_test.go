package ui

import (
	"io"
	"log"
	"path/filepath"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

func TestMain(m *testing.M) { uitest.Main(m) }

// world is a freshly generated sample bank, opened as the program opens it.
type world struct {
	dir   string
	store *review.Store
	index *index.Index
	deps  common.Deps
}

// newWorld generates the sample world in a temp dir and opens it. The
// store's clock is fixed so decisions are deterministic.
func newWorld(tb testing.TB) *world {
	tb.Helper()
	dir := tb.TempDir()
	if err := sample.Generate(dir, sample.Seed); err != nil {
		tb.Fatalf("generate the sample world: %v", err)
	}
	w := &world{dir: dir}
	w.open(tb)
	return w
}

var fixedNow = time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)

func (w *world) open(tb testing.TB) {
	tb.Helper()
	s, err := review.Open(w.dir, review.Options{Now: func() time.Time { return fixedNow }})
	if err != nil {
		tb.Fatalf("open the bank: %v", err)
	}
	ix, err := index.Open(filepath.Join(w.dir, review.IndexDir), s)
	if err != nil {
		s.Close()
		tb.Fatalf("open the index: %v", err)
	}
	w.store, w.index = s, ix
	w.deps = common.Deps{Store: s, Index: ix, BankName: "sample", IsSample: true,
		Operator: "tester", Log: log.New(io.Discard, "", 0)}
	tb.Cleanup(w.close)
}

func (w *world) close() {
	if w.index != nil {
		w.index.Close()
		w.index = nil
	}
	if w.store != nil {
		w.store.Close()
		w.store = nil
	}
}

// reopen closes the bank and opens it again from disk.
func (w *world) reopen(tb testing.TB) {
	w.close()
	w.open(tb)
}

// drive feeds msg to model and runs the Cmds it returns synchronously,
// feeding their messages back, until none is left. Cmds that do not return
// within wait (timers: status expiry, spinner frames) are dropped.
func drive(model tea.Model, msg tea.Msg) tea.Model {
	queue := []tea.Msg{msg}
	for len(queue) > 0 {
		msg, queue = queue[0], queue[1:]
		var cmd tea.Cmd
		model, cmd = model.Update(msg)
		queue = append(queue, run(cmd)...)
	}
	return model
}

const wait = 500 * time.Millisecond

func run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	select {
	case msg := <-ch:
		switch msg := msg.(type) {
		case nil:
			return nil
		case tea.BatchMsg:
			var out []tea.Msg
			for _, c := range msg {
				out = append(out, run(c)...)
			}
			return out
		}
		return []tea.Msg{msg}
	case <-time.After(wait):
		return nil
	}
}

// started returns the root model sized w×h with the queue and the first
// proposal loaded.
func started(tb testing.TB, deps common.Deps, w, h int) tea.Model {
	tb.Helper()
	m := New(deps)
	for _, msg := range run(m.Init()) {
		m = drive(m, msg)
	}
	return drive(m, tea.WindowSizeMsg{Width: w, Height: h})
}
