package ui

import (
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample/testenv"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// BenchmarkSession drives the root model through one operator's session on
// a large bank, as the program's event loop would run it, and times each
// step to the frame that shows its result:
//
//	MEMREVIEW_BENCH_BANK=/path/to/bank go test ./ui/ -run '^$' -bench Session -benchtime 1x
//
// The bank is one that `memreview sample gen --records N` wrote (records
// with provenance, trajectories, an index caught up). Every Cmd runs in its
// own goroutine and its message is handled when it arrives, as in the
// program, with two differences: a debounce (common.Delayed) is delivered
// at once, so typed-search times leave out the 120 ms wait, and heartbeats
// (polls, status expiry) are dropped. View runs after every message.
//
//   - open-ms: review.Open, the service, ui.New, Init, the window size and
//     the first View (the index opens in a goroutine, as main.go opens it).
//   - index-ms: the service holding the index, in that goroutine (a search
//     made before it is open waits for it).
//   - review-ms: from the start to the frame showing the review queue loaded.
//   - bank-ms: key 2 (pressed once the index is open) to the frame of the
//     bank screen's first results with the rows on screen loaded (the
//     blank list of active records).
//   - typed-*-ms: each character of "join price" typed into the search box
//     to the frame of its results with the rows loaded (the space, which
//     the index reads as the same query, to the frame that keeps them).
//   - trajs-ms: key 4 to the trajectories screen with the records of every
//     trajectory marked (all its background loads done).
//   - peak-heap-MB: the most heap in use, sampled every 5 ms through the
//     session; VmHWM-MB: the process's peak RSS (/proc/self/status), which
//     also counts the pages of the memory-mapped index the searches read.
func BenchmarkSession(b *testing.B) {
	dir := testenv.BenchBank(b, "that `memreview sample gen` wrote")
	peak, stop := sampleHeap()
	defer stop()
	var open, ixOpen, rev, bank, trajs durations
	var typed durations
	for b.Loop() {
		start := time.Now()
		svc, deps, held, took := openAsProgram(b, dir)
		p := newProg(New(deps))
		init := p.m.Init()
		p.update(tea.WindowSizeMsg{Width: 200, Height: 60})
		_ = p.m.View()
		open = append(open, time.Since(start))
		p.start(init)
		if !p.until(b, func(v string) bool { return reviewLoaded.MatchString(v) }) {
			b.Fatalf("the review queue did not load:\n%s", p.m.View())
		}
		rev = append(rev, time.Since(start))

		<-held // the bank screen's time is its own, not the index's opening (index-ms)
		before := statusOf(p.m.View())
		t := time.Now()
		if trace {
			fmt.Fprintf(os.Stderr, "%s key 2\n", t.Format("15:04:05.000"))
		}
		p.update(uitest.Key("2"))
		if !p.until(b, func(v string) bool { return resultsShown(v, before) }) {
			b.Fatalf("the bank screen showed no results:\n%s", p.m.View())
		}
		bank = append(bank, time.Since(t))
		p.settle(b)

		p.update(uitest.Key("/"))
		typedSoFar := ""
		for _, r := range "join price" {
			before := statusOf(p.m.View())
			same := index.RequireAll(typedSoFar+string(r)) == index.RequireAll(typedSoFar) // a space: nothing to search
			typedSoFar += string(r)
			t := time.Now()
			p.update(uitest.Key(string(r)))
			if same {
				p.settle(b)
			} else if !p.until(b, func(v string) bool { return resultsShown(v, before) }) {
				b.Fatalf("no results after typing %q:\n%s", r, p.m.View())
			}
			typed = append(typed, time.Since(t))
			if trace {
				fmt.Fprintf(os.Stderr, "typed %q: %s\n", r, time.Since(t))
			}
			p.settle(b)
		}
		p.update(uitest.Key("esc"))

		t = time.Now()
		p.update(uitest.Key("4"))
		p.settle(b)
		trajs = append(trajs, time.Since(t))
		if v := ansi.Strip(p.m.View()); !strings.Contains(v, "●") {
			b.Fatalf("the trajectories screen marks no trajectory as curated:\n%s", v)
		}

		b.StopTimer()
		<-held
		ixOpen = append(ixOpen, *took)
		if err := svc.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	ms := func(d durations, name string) {
		s := slices.Clone(d)
		slices.Sort(s)
		b.ReportMetric(float64(s[len(s)/2].Microseconds())/1000, name+"-ms")
	}
	ms(open, "open")
	ms(ixOpen, "index")
	ms(rev, "review")
	ms(bank, "bank")
	ms(trajs, "trajs")
	s := slices.Clone(typed)
	slices.Sort(s)
	b.ReportMetric(float64(s[len(s)/2].Microseconds())/1000, "typed-p50-ms")
	b.ReportMetric(float64(s[len(s)-1].Microseconds())/1000, "typed-max-ms")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
	b.ReportMetric(vmHWM()/1024, "VmHWM-MB")
}

// openAsProgram opens the bank as main.go opens it for the TUI: the store
// and the service at once, the index held in a goroutine (its progress on
// Deps.IndexProgress). held closes once the index is open; *took is then
// how long that took.
func openAsProgram(b *testing.B, dir string) (svc *app.Service, deps common.Deps, held chan struct{}, took *time.Duration) {
	b.Helper()
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	svc = app.New(st, app.Options{Operator: "bench"})
	progress := make(chan common.IndexProgress)
	held, took = make(chan struct{}), new(time.Duration)
	go func() {
		start := time.Now()
		defer close(held)
		if err := svc.HoldIndex(3 * time.Second); err != nil {
			b.Errorf("hold the index: %v", err)
		}
		*took = time.Since(start)
		close(progress)
	}()
	return svc, common.Deps{Service: svc, BankName: filepath.Base(dir), Operator: "bench",
		Log: log.New(io.Discard, "", 0), Curator: common.NewCurator(curator.Settings{}), IndexProgress: progress}, held, took
}

var (
	reviewLoaded = regexp.MustCompile(`Review \d+/\d+`)
	// a result row whose record has loaded: id, then its category
	loadedRow = regexp.MustCompile(`[▸ ][* ](mem_\S+) +(fact|procedure|relation|convention|warning|strategy|recovery|optimisation) `)
	anyRow    = regexp.MustCompile(`[▸ ][* ](mem_\S+) `)
)

// statusOf is the bank screen's status line ("96,952 records in 3.2ms"),
// or "" on another screen.
func statusOf(view string) string {
	lines := strings.Split(ansi.Strip(view), "\n")
	if len(lines) > 2 && strings.Contains(lines[0], "[2 Bank") {
		return lines[2]
	}
	return ""
}

// resultsShown reports whether the frame shows the results of a search
// newer than the one whose status line was before, with every row on
// screen loaded (or no match).
func resultsShown(view, before string) bool {
	v := ansi.Strip(view)
	s := statusOf(view)
	if s == "" || s == before || !strings.Contains(s, " in ") {
		return false
	}
	if strings.Contains(v, "No record matches") {
		return true
	}
	return len(anyRow.FindAllString(v, -1)) > 0 && len(loadedRow.FindAllString(v, -1)) == len(anyRow.FindAllString(v, -1))
}

// trace (MEMREVIEW_BENCH_TRACE=1) prints each message as it arrives.
var trace = os.Getenv("MEMREVIEW_BENCH_TRACE") != ""

// prog runs the root model as the program's event loop does.
type prog struct {
	m        tea.Model
	msgs     chan tea.Msg
	inflight int
}

func newProg(m tea.Model) *prog { return &prog{m: m, msgs: make(chan tea.Msg, 256)} }

// start runs cmd in its own goroutine.
func (p *prog) start(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	p.inflight++
	go func() { p.msgs <- cmd() }()
}

// update hands msg to the model (unpacking batches and debounces) and
// starts the Cmd it returns.
func (p *prog) update(msg tea.Msg) {
	switch msg := msg.(type) {
	case nil:
		return
	case tea.BatchMsg:
		for _, c := range msg {
			p.start(c)
		}
		return
	case common.Delayed:
		if !msg.Heartbeat {
			p.update(msg.Msg) // a debounce: at once
		}
		return
	}
	var cmd tea.Cmd
	p.m, cmd = p.m.Update(msg)
	p.start(cmd)
}

// until handles messages until the frame satisfies ok; false when none
// came for a minute or nothing is left to run.
func (p *prog) until(tb testing.TB, ok func(view string) bool) bool {
	tb.Helper()
	for {
		if ok(p.m.View()) {
			if trace {
				fmt.Fprintf(os.Stderr, "%s done\n", time.Now().Format("15:04:05.000"))
			}
			return true
		}
		if p.inflight == 0 {
			return false
		}
		select {
		case msg := <-p.msgs:
			p.inflight--
			if trace {
				fmt.Fprintf(os.Stderr, "%s %T\n", time.Now().Format("15:04:05.000"), msg)
			}
			p.update(msg)
		case <-time.After(time.Minute):
			return false
		}
	}
}

// settle handles messages until every Cmd started has answered.
func (p *prog) settle(tb testing.TB) {
	tb.Helper()
	p.until(tb, func(string) bool { return p.inflight == 0 })
}

// sampleHeap samples the heap in use (objects and free space in spans in
// use, as MemStats.HeapInuse, read through runtime/metrics, which does not
// stop the world) every 5 ms and keeps the most.
func sampleHeap() (*atomic.Uint64, func()) {
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
		for {
			metrics.Read(s)
			if n := s[0].Value.Uint64() + s[1].Value.Uint64(); n > peak.Load() {
				peak.Store(n)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return &peak, func() { close(done) }
}

// vmHWM is the process's peak resident set in KiB (0 where /proc has none).
func vmHWM() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			n, _ := strconv.ParseFloat(f[1], 64)
			return n
		}
	}
	return 0
}
