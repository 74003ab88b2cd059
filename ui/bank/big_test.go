package bank

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
)

// TestBigBankRealIndex repeats the windowing checks on a real bank of
// 100,000 records and its Bleve index. Building them takes minutes on two
// cores, so it runs only with MEMREVIEW_BIG=1; TestListRendersOnlyVisibleRows
// proves the same with a fake index on every run.
func TestBigBankRealIndex(t *testing.T) {
	if os.Getenv("MEMREVIEW_BIG") == "" {
		t.Skip("set MEMREVIEW_BIG=1 to build a 100,000-record bank and its index")
	}
	const n, batch = 100_000, 5_000
	dir := t.TempDir()
	s, err := review.Create(dir, review.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	words := strings.Fields("join price cents stars warranty brand review schema table column revenue head site month")
	start := time.Now()
	for b := 0; b < n; b += batch {
		recs := make([]review.Record, 0, batch)
		for i := b; i < b+batch; i++ {
			recs = append(recs, review.Record{ID: recID(i), Category: review.Categories[i%len(review.Categories)],
				Lemma:  fmt.Sprintf("Record %d: %s %s %s.", i, words[i%len(words)], words[(i/7)%len(words)], words[(i/49)%len(words)]),
				Scope:  review.Scope{Env: []string{"shop", "docs"}[i%2]},
				Status: review.Active, Confidence: 0.5})
		}
		if err := s.PutRecords(recs, "bench", "generated"); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("stored %d records in %s", n, time.Since(start))
	start = time.Now()
	ix, err := index.Open(filepath.Join(dir, review.IndexDir), s)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	t.Logf("indexed them in %s", time.Since(start))

	m := New(common.NewCommon(), common.Deps{Store: s, Index: ix, Operator: "bench"}).(*Model)
	m.SetSize(90, 40) // the list alone: every line naming a record is a row
	drain(t, m, m.Init())
	want := m.list.height
	if m.list.total != n || rows(m.View()) != want {
		t.Fatalf("%d hits, %d rows drawn; want %d hits and %d rows", m.list.total, rows(m.View()), n, want)
	}
	_, cmd := m.Update(press("G"))
	drain(t, m, cmd)
	if v := m.View(); rows(v) != want || !strings.Contains(v, recID(n-1)) {
		t.Fatalf("at the end: %d rows drawn, want %d with %s:\n%s", rows(v), want, recID(n-1), v)
	}
	if len(m.recs) > 2*want {
		t.Errorf("the screen holds %d records for %d rows", len(m.recs), want)
	}
	// Keystroke to frame: Update and View of a cursor move, without the Cmds.
	start = time.Now()
	for i := 0; i < 100; i++ {
		m.Update(tea.KeyMsg{Type: tea.KeyUp})
		_ = m.View()
	}
	t.Logf("keystroke → frame: %s per key", time.Since(start)/100)
}
