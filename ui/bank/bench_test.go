package bank

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// Benchmarks of the bank screen on a real bank of 100,000 records and its
// Bleve index (go test -run '^$' -bench . ./ui/bank). The bank is built once
// per process, under os.TempDir(), and removed when the process ends;
// building it takes about half a minute. TestListRendersOnlyVisibleRows
// proves the windowing with a fake index on every test run.

// bigN is the number of records in the benchmark bank.
const bigN = 100_000

var big struct {
	once sync.Once
	dir  string
	deps common.Deps
	err  error
}

// bigBank returns the benchmark bank, building it on first use.
func bigBank(b *testing.B) common.Deps {
	b.Helper()
	big.once.Do(func() {
		start := time.Now()
		big.dir, big.deps, big.err = buildBigBank()
		if big.err == nil {
			b.Logf("built a bank of %d records and its index in %s", bigN, time.Since(start).Round(time.Second))
		}
	})
	if big.err != nil {
		b.Fatalf("build the %d-record bank: %v", bigN, big.err)
	}
	return big.deps
}

func buildBigBank() (string, common.Deps, error) {
	const batch = 5_000
	dir, err := os.MkdirTemp("", "memreview-bench-100k-")
	if err != nil {
		return "", common.Deps{}, err
	}
	s, err := store.Create(dir, store.Options{})
	if err != nil {
		return dir, common.Deps{}, err
	}
	words := strings.Fields("join price cents stars warranty brand review schema table column revenue head site month")
	for b := 0; b < bigN; b += batch {
		recs := make([]review.Record, 0, batch)
		for i := b; i < b+batch; i++ {
			recs = append(recs, review.Record{ID: recID(i), Category: review.Categories[i%len(review.Categories)],
				Lemma:  fmt.Sprintf("Record %d: %s %s %s.", i, words[i%len(words)], words[(i/7)%len(words)], words[(i/49)%len(words)]),
				Scope:  review.Scope{Env: []string{"shop", "docs"}[i%2]},
				Status: review.Active, Confidence: 0.5})
		}
		if err := s.PutRecords(recs, "bench", "generated"); err != nil {
			s.Close()
			return dir, common.Deps{}, err
		}
	}
	svc := app.New(s, app.Options{Operator: "bench"})
	if err := svc.HoldIndex(3 * time.Second); err != nil { // builds the index
		svc.Close()
		return dir, common.Deps{}, err
	}
	return dir, common.Deps{Service: svc, Operator: "bench"}, nil
}

// removeBigBank closes and deletes the benchmark bank, if one was built.
func removeBigBank() {
	if big.deps.Service != nil {
		big.deps.Service.Close()
	}
	if big.dir != "" {
		os.RemoveAll(big.dir)
	}
}

// newBigScreen opens the bank screen on the benchmark bank at 200x60 with
// the first page, its rows and the first record's detail loaded.
func newBigScreen(b *testing.B) *Model {
	m := New(common.NewCommon(), bigBank(b)).(*Model)
	m.SetSize(200, 60)
	uitest.Drain(b, m, m.Init())
	if m.list.total != bigN || !m.ready() {
		b.Fatalf("the screen shows %d hits (detail loaded: %v); want %d", m.list.total, m.ready(), bigN)
	}
	return m
}

// latencies collects per-keystroke times and reports their percentiles.
type latencies []time.Duration

func (l latencies) report(b *testing.B) {
	if len(l) == 0 {
		return
	}
	slices.Sort(l)
	at := func(p float64) float64 { return float64(l[int(p*float64(len(l)-1))].Nanoseconds()) }
	b.ReportMetric(at(0.50), "p50-ns/key")
	b.ReportMetric(at(0.99), "p99-ns/key")
}

// BenchmarkKeystroke100k is keystroke to frame on the bank screen over
// 100,000 records at 200x60: Update of a cursor move (j, or k on the way
// back) and the View that follows. The Cmds the move starts (pages, rows,
// the detail) run between keystrokes, untimed, as the program would run
// them in the background.
func BenchmarkKeystroke100k(b *testing.B) {
	m := newBigScreen(b)
	down, up := uitest.Key("j"), uitest.Key("k")
	lat := make(latencies, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		key := down
		if i/500%2 == 1 { // 500 rows down, 500 back up, …
			key = up
		}
		start := time.Now()
		_, cmd := m.Update(key)
		_ = m.View()
		lat = append(lat, time.Since(start))
		b.StopTimer()
		uitest.Drain(b, m, cmd)
		b.StartTimer()
	}
	b.StopTimer()
	lat.report(b)
}

// BenchmarkSearchAsYouType100k is keystroke to results frame in the search
// box over 100,000 records at 200x60: Update of a typed rune, the search
// the debounce would start (the 120 ms wait itself left out), the Bleve
// query for the first page with facets and highlights, Update with its
// hits, and the View that shows them. The row and detail loads that follow
// run untimed.
func BenchmarkSearchAsYouType100k(b *testing.B) {
	m := newBigScreen(b)
	_, cmd := m.Update(uitest.Key("/"))
	uitest.Drain(b, m, cmd)
	const script = "price stars -review warranty brand"
	lat := make(latencies, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%len(script) == 0 && i > 0 { // start the script again in an empty box
			b.StopTimer()
			m.search.SetValue("")
			b.StartTimer()
		}
		start := time.Now()
		m.Update(uitest.Key(script[i%len(script) : i%len(script)+1])) // returns the debounce tick
		_, search := m.Update(m.search.Pending())
		_, fill := m.Update(search())
		_ = m.View()
		lat = append(lat, time.Since(start))
		b.StopTimer()
		if !m.searched || m.list.stale {
			b.Fatalf("%q: the results did not arrive", m.search.Value())
		}
		uitest.Drain(b, m, fill)
		b.StartTimer()
	}
	b.StopTimer()
	lat.report(b)
}
