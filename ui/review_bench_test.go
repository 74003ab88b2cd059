package ui

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/sample/testenv"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// Benchmarks of the whole program (the root model) on a bank of 100,000
// records (go test ./ui/ -run '^$' -bench 100k). The bank is
// sample.Synth(Records: 100,000, Trajectories: 1,000, Seed: 1) plus
// bigProposals proposals that update existing records, with its index,
// built once under os.TempDir() (memreview-ui-bench-100000-seed1) and
// reused across runs and processes; delete it to rebuild. When the index
// package's search corpus (memreview-bench-100000-seed1, the same Synth) is
// there, its bank and index are copied instead of synthesised again.

const (
	bigRecords   = 100_000
	bigProposals = 50
	bigSeed      = 1
)

// bigBankDir returns the directory of the benchmark bank, building it when
// it is missing or incomplete.
func bigBankDir(b *testing.B) string {
	b.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("memreview-ui-bench-%d-seed%d", bigRecords, bigSeed))
	start := time.Now()
	built, err := testenv.BuildOnce(dir, func(tmp string) error {
		// The index package's search corpus is the same Synth: copy it
		// when it is there.
		corpus := filepath.Join(os.TempDir(), fmt.Sprintf("memreview-bench-%d-seed%d", bigRecords, bigSeed))
		if testenv.Built(corpus) {
			if err := copyBank(corpus, tmp); err != nil {
				return fmt.Errorf("copy the bank from %s: %w", corpus, err)
			}
		} else if err := sample.Synth(tmp, sample.SynthOptions{Records: bigRecords, Trajectories: bigRecords / 100, Seed: bigSeed}); err != nil {
			return fmt.Errorf("synthesise the bank: %w", err)
		}
		return finishBigBank(tmp)
	})
	if err != nil {
		b.Fatal(err)
	}
	if !built {
		return dir
	}
	b.Logf("built the %d-record bank in %s", bigRecords, time.Since(start).Round(time.Second))
	return dir
}

// finishBigBank queues the benchmark's proposals on the bank in tmp and
// builds its index.
func finishBigBank(tmp string) error {
	s, err := store.Open(tmp, store.Options{})
	if err != nil {
		return err
	}
	if err := addBenchProposals(s); err != nil {
		s.Close()
		return fmt.Errorf("queue proposals: %w", err)
	}
	ix, err := index.Open(filepath.Join(tmp, store.IndexDir), s) // catches up, or builds
	if err != nil {
		s.Close()
		return err
	}
	return errors.Join(ix.Close(), s.Close())
}

// copyBank copies bank.db, memreview.toml and the index of a bank.
func copyBank(from, to string) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel != "." && rel != store.IndexDir && !strings.HasPrefix(rel, store.IndexDir+string(filepath.Separator)) {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		if rel != "bank.db" && rel != "memreview.toml" && !strings.HasPrefix(rel, store.IndexDir+string(filepath.Separator)) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
}

// addBenchProposals queues bigProposals updates of records spread over the
// bank, each citing the trajectory its record came from when it has one.
func addBenchProposals(s *store.Store) error {
	ps := make([]review.Proposal, 0, bigProposals)
	for k := range bigProposals {
		id := fmt.Sprintf("mem_%06d", 1+k*(bigRecords/bigProposals))
		r, err := s.Record(id)
		if err != nil {
			return err
		}
		nr := *r
		nr.Lemma = r.Lemma + " Checked again after the schema change: it still holds."
		nr.Confidence = min(1, r.Confidence+0.05)
		p := review.Proposal{Op: review.OpUpdate, Targets: []review.Target{{ID: id}}, Record: &nr,
			Rationale:  fmt.Sprintf("The task re-checked %s and found it still holds; raise confidence.", id),
			CuratorRun: "bench"}
		if r.Provenance.Trajectory != "" {
			p.Trajectory = r.Provenance.Trajectory
			p.Evidence.Steps = []review.StepRange{{From: 1, To: 3}}
		}
		ps = append(ps, p)
	}
	return s.AddProposals(ps, nil)
}

// openBig opens the benchmark bank as the program does: a service that
// holds the shared index (caught up).
func openBig(b *testing.B, dir string) (*app.Service, common.Deps) {
	b.Helper()
	s, err := store.Open(dir, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	svc := app.New(s, app.Options{Operator: "bench"})
	if err := svc.HoldIndex(3 * time.Second); err != nil {
		svc.Close()
		b.Fatal(err)
	}
	return svc, common.Deps{Service: svc, BankName: filepath.Base(dir), Operator: "bench",
		Log: log.New(io.Discard, "", 0)}
}

// settleWait is how long settle waits for one Cmd: loads answer in
// milliseconds; a Cmd still running after it is a timer (the footer's
// status expiry, a debounce) and is left behind, as a running program
// would leave it for later.
const settleWait = 300 * time.Millisecond

// settle runs cmd and the Cmds its messages start, feeding each message to
// m, as the program's event loop would in the background.
func settle(b *testing.B, m tea.Model, cmd tea.Cmd) tea.Model {
	b.Helper()
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0; n++ {
		if n > 10000 {
			b.Fatal("settle: runaway commands")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		ch := make(chan tea.Msg, 1)
		go func() { ch <- c() }()
		var msg tea.Msg
		select {
		case msg = <-ch:
		case <-time.After(settleWait):
			continue
		}
		switch msg := msg.(type) {
		case nil:
			continue
		case tea.BatchMsg:
			queue = append(queue, msg...)
			continue
		}
		var next tea.Cmd
		m, next = m.Update(msg)
		queue = append(queue, next)
	}
	return m
}

// durations collects latencies and reports percentiles of them.
type durations []time.Duration

func (d durations) report(b *testing.B, suffix string) {
	if len(d) == 0 {
		return
	}
	s := slices.Clone(d)
	slices.Sort(s)
	at := func(p float64) float64 { return float64(s[int(p*float64(len(s)-1))].Nanoseconds()) }
	b.ReportMetric(at(0.50), "p50-ns/"+suffix)
	b.ReportMetric(at(0.99), "p99-ns/"+suffix)
}

// BenchmarkReviewKeystroke100k is keystroke to frame on the review screen
// of the root model over a bank of 100,000 records and 50 proposals, at
// 200x60: Update of a key and the View that follows. Three keys in four
// scroll the focused pane (j for 20 keys, then k for 20); every fourth
// moves to the next proposal (], for 50, then [ for 50). The Cmds a key
// starts (the proposal's context load) run between keystrokes, untimed,
// as the program runs them in the background; settled-ns/nav is ] or [
// to the frame that shows the loaded proposal (the load included).
//
//	go test ./ui/ -run '^$' -bench 'ReviewKeystroke100k' -count 5
func BenchmarkReviewKeystroke100k(b *testing.B) {
	dir := bigBankDir(b)
	svc, deps := openBig(b, dir)
	defer svc.Close()
	var m tea.Model = New(deps)
	m = settle(b, m, m.Init())
	var cmd tea.Cmd
	m, cmd = m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	m = settle(b, m, cmd)
	if v := m.View(); !strings.Contains(v, fmt.Sprintf("Review 1/%d", bigProposals)) {
		b.Fatalf("the review screen does not show the queue:\n%s", v)
	}
	var all, scroll, nav, settled durations
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		var key tea.Msg
		isNav := i%4 == 3
		switch {
		case isNav && (i/(4*bigProposals))%2 == 0:
			key = uitest.Key("]")
		case isNav:
			key = uitest.Key("[")
		case (i/20)%2 == 0:
			key = uitest.Key("j")
		default:
			key = uitest.Key("k")
		}
		start := time.Now()
		m, cmd = m.Update(key)
		_ = m.View()
		d := time.Since(start)
		all = append(all, d)
		b.StopTimer()
		if isNav {
			nav = append(nav, d)
			m = settle(b, m, cmd)
			_ = m.View()
			settled = append(settled, time.Since(start))
		} else {
			scroll = append(scroll, d)
			m = settle(b, m, cmd)
		}
		b.StartTimer()
	}
	b.StopTimer()
	all.report(b, "key")
	scroll.report(b, "jk")
	nav.report(b, "nav")
	settled.report(b, "nav-settled")
}

// BenchmarkOpenToFirstFrame100k opens the bank of 100,000 records as the
// program does and draws its first frame: review.Open, the service holding
// the index (caught up), ui.New, Init and the Cmds it starts (the queue, the first
// proposal's context), the terminal's size, and the first View, which
// must show the queue's header ("Review 1/50"). Closing is untimed.
//
//	go test ./ui/ -run '^$' -bench 'OpenToFirstFrame100k' -count 5
func BenchmarkOpenToFirstFrame100k(b *testing.B) {
	dir := bigBankDir(b)
	want := fmt.Sprintf("Review 1/%d", bigProposals)
	var lat durations
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		svc, deps := openBig(b, dir)
		var m tea.Model = New(deps)
		init := m.Init()
		var cmd tea.Cmd
		m, cmd = m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
		m = settle(b, m, tea.Batch(init, cmd))
		v := m.View()
		lat = append(lat, time.Since(start))
		b.StopTimer()
		if !strings.Contains(v, want) {
			b.Fatalf("the first frame does not show %q:\n%s", want, v)
		}
		if err := svc.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	lat.report(b, "open")
}
