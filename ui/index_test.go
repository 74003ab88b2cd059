package ui

import (
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// TestFirstFrameDoesNotWaitForTheIndex opens a bank with no index as
// main.go does (the index held in a goroutine, its progress on a channel)
// and holds the build at its first report: the first frame is drawn, the
// review queue loads from the store, the footer shows how far the build
// has come, and the bank screen shows its records all the same (read
// from the bank while the index builds). Let go, the build finishes and
// the footer line goes.
func TestFirstFrameDoesNotWaitForTheIndex(t *testing.T) {
	t.Parallel()
	dir := uitest.SampleDir(t)
	if err := os.RemoveAll(filepath.Join(dir, store.IndexDir)); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	progress := make(chan common.IndexProgress, 1)
	release := make(chan struct{})
	var letGo sync.Once
	free := func() { letGo.Do(func() { close(release) }) }
	defer free() // a failed check must not leave the build waiting
	var mu sync.Mutex
	first := true
	report := func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		select {
		case <-progress:
		default:
		}
		if first {
			// The sample world may fit one batch, whose report is already
			// the last: say the build is under way, and hold it here
			// until the test lets go.
			first = false
			progress <- common.IndexProgress{Done: 0, Total: total}
			mu.Unlock()
			<-release
			mu.Lock()
			return
		}
		progress <- common.IndexProgress{Done: done, Total: total}
	}
	svc := app.New(st, app.Options{Operator: "tester", IndexProgress: func(done, total int) {
		report(done, total)
	}})
	held := make(chan struct{})
	go func() {
		defer close(held)
		if err := svc.HoldIndex(3 * time.Second); err != nil {
			t.Errorf("hold the index: %v", err)
		}
		if _, err := svc.IndexDocs(); err != nil { // the build runs in the background: wait for it
			t.Errorf("build the index: %v", err)
		}
		mu.Lock()
		close(progress)
		mu.Unlock()
	}()
	defer func() {
		free()
		<-held
		svc.Close()
	}()
	deps := common.Deps{Service: svc, BankName: "sample", IsSample: true, Operator: "tester",
		Log: log.New(io.Discard, "", 0), IndexProgress: progress}

	p := newProg(New(deps))
	init := p.m.Init()
	p.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if v := ansi.Strip(p.m.View()); !strings.Contains(v, "1 Review") {
		t.Fatalf("no first frame:\n%s", v)
	}
	p.start(init)
	waitView := func(what string, ok func(v string) bool) {
		t.Helper()
		if !p.until(t, func(v string) bool { return ok(ansi.Strip(v)) }) {
			t.Fatalf("%s: not seen:\n%s", what, ansi.Strip(p.m.View()))
		}
	}
	waitView("the queue and the build's progress", func(v string) bool {
		return reviewLoaded.MatchString(v) && strings.Contains(v, "building the search index: ") && strings.Contains(v, "searches read the rest from the bank")
	})
	p.update(uitest.Key("2"))
	waitView("the bank's records while the index builds", func(v string) bool {
		return strings.Contains(v, "building the search index") && loadedRow.MatchString(v)
	})
	free()
	waitView("the footer once the index is built", func(v string) bool {
		return !strings.Contains(v, "building the search index") && loadedRow.MatchString(v)
	})
}
