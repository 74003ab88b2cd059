package bank

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// fakeSource is a bank of n generated records behind the Source interface,
// counting what the screen asks for. When gate is set, Search waits on it.
type fakeSource struct {
	n    int
	gate chan struct{}

	mu       sync.Mutex
	searches []app.SearchRequest
	recIDs   int // record details asked for, in all
}

func recID(i int) string { return fmt.Sprintf("rec_%06d", i) }

func (f *fakeSource) Search(req app.SearchRequest) (*app.SearchResults, error) {
	if f.gate != nil {
		<-f.gate
	}
	f.mu.Lock()
	f.searches = append(f.searches, req)
	f.mu.Unlock()
	res := &app.SearchResults{Total: uint64(f.n)}
	for i := req.From; i < min(req.From+req.Size, f.n); i++ {
		h := app.Hit{ID: recID(i), Type: "record", Score: 1}
		if req.Query != "" {
			h.Fragments = map[string][]string{"lemma": {"lemma about " + app.MarkStart + strings.TrimLeft(req.Query, "+") + app.MarkEnd + "\nhere"}}
		}
		res.Hits = append(res.Hits, h)
	}
	if len(req.Facets) > 0 {
		res.Facets = map[string][]app.FacetCount{"category": {{Term: "fact", Count: f.n}}}
	}
	return res, nil
}

// SearchByWorth is Search: no fake record was retrieved by a task, so
// worth order is the index's.
func (f *fakeSource) SearchByWorth(req app.SearchRequest, _ map[string]review.Worth, _ bool) (*app.SearchResults, error) {
	return f.Search(req)
}

func (f *fakeSource) Records(ids []string) (map[string]*review.Record, error) {
	f.mu.Lock()
	f.recIDs += len(ids)
	f.mu.Unlock()
	out := map[string]*review.Record{}
	for _, id := range ids {
		out[id] = &review.Record{ID: id, Lemma: "lemma of " + id, Category: review.Fact, Status: review.Active}
	}
	return out, nil
}

func (f *fakeSource) Detail(id string) (*Detail, error) {
	r, _ := f.Records([]string{id})
	return &Detail{Record: r[id]}, nil
}

func (f *fakeSource) counts() (int, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.searches), f.recIDs
}

func newFakeScreen(tb testing.TB, src Source, w, h int) *Model {
	tb.Helper()
	m := NewWithSource(common.NewCommon(), common.Deps{}, src)
	m.SetSize(w, h)
	uitest.Drain(tb, m, m.Init())
	return m
}

// rows counts the result rows View drew: the lines naming a record.
func rows(view string) int {
	n := 0
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, "rec_") {
			n++
		}
	}
	return n
}

// TestListRendersOnlyVisibleRows proves the list's cost does not grow with
// the result count: at 100 and at 100,000 hits View draws exactly the rows
// that fit, the screen pages hits in from the index instead of loading them
// all, and asks for record details of the rows on screen only.
func TestListRendersOnlyVisibleRows(t *testing.T) {
	t.Parallel()
	const w, h = 90, 30 // narrow: the list alone
	small := newFakeScreen(t, &fakeSource{n: 100}, w, h)
	bigSrc := &fakeSource{n: 100_000}
	big := newFakeScreen(t, bigSrc, w, h)

	want := small.list.height
	if want < 10 || want >= 100 {
		t.Fatalf("list height %d: the test needs a window smaller than 100 rows", want)
	}
	if got := rows(small.View()); got != want {
		t.Errorf("100 hits: View drew %d rows, want the %d that fit", got, want)
	}
	if got := rows(big.View()); got != want {
		t.Errorf("100,000 hits: View drew %d rows, want the %d that fit", got, want)
	}
	if !strings.Contains(big.View(), "lemma of rec_000000") {
		t.Errorf("first row has no lemma loaded:\n%s", big.View())
	}
	searches, recs := bigSrc.counts()
	if searches != 2 || recs > want+1 {
		t.Errorf("100,000 hits: %d searches and %d record loads for one screen; want 1 page, 1 count of facets and at most %d records", searches, recs, want+1)
	}
	// The page asks for no facets (counting every hit would hold up the
	// rows); one request after it asks for the facets alone.
	if p, f := bigSrc.searches[0], bigSrc.searches[1]; len(p.Facets) > 0 || len(f.Facets) == 0 || f.Size > 1 || f.Highlight {
		t.Errorf("100,000 hits: the first request %+v, the second %+v; want the page without facets, then the facets alone", p, f)
	}
	for _, r := range bigSrc.searches {
		if r.Size > pageSize {
			t.Errorf("a search asked for %d hits; pages are %d", r.Size, pageSize)
		}
	}

	// Jump to the end: one more page, from the end, and still one screen.
	_, cmd := big.Update(uitest.Key("G"))
	uitest.Drain(t, big, cmd)
	v := big.View()
	if got := rows(v); got != want {
		t.Errorf("at the end: View drew %d rows, want %d", got, want)
	}
	if !strings.Contains(v, recID(99_999)) || !strings.Contains(v, "lemma of "+recID(99_999)) {
		t.Errorf("at the end the last record is not shown with its lemma:\n%s", v)
	}
	last := bigSrc.searches[len(bigSrc.searches)-1]
	if last.From != 99_900 {
		t.Errorf("paging to the end asked From=%d, want 99900", last.From)
	}
	// Scroll a long way: the pages held stay bounded.
	for i := 0; i < 30; i++ {
		_, cmd := big.Update(tea.KeyMsg{Type: tea.KeyPgUp})
		uitest.Drain(t, big, cmd)
	}
	if n := len(big.list.pages); n > keepPages {
		t.Errorf("after scrolling the screen holds %d pages, want at most %d", n, keepPages)
	}
	if rows(big.View()) != want {
		t.Errorf("after scrolling View drew %d rows, want %d", rows(big.View()), want)
	}
}

// TestTypingNeverBlocksOnSearch types into the search box while the index
// is stuck: Update returns at once with a Cmd, the search runs only in the
// Cmd, and a result for an older query is dropped.
func TestTypingNeverBlocksOnSearch(t *testing.T) {
	t.Parallel()
	src := &fakeSource{n: 500}
	m := newFakeScreen(t, src, 120, 30)
	before, _ := src.counts()
	src.gate = make(chan struct{}) // from now on every search blocks

	update := func(msg tea.Msg) tea.Cmd {
		t.Helper()
		done := make(chan tea.Cmd, 1)
		go func() { _, c := m.Update(msg); done <- c }()
		select {
		case c := <-done:
			return c
		case <-time.After(2 * time.Second):
			t.Fatalf("Update(%v) blocked", msg)
			return nil
		}
	}
	update(uitest.Key("/"))
	if !m.Capturing() {
		t.Fatal("/ did not focus the search box")
	}
	cmd := update(uitest.Key("f"))
	if cmd == nil {
		t.Fatal("typing returned no Cmd: the search must run in one")
	}
	if n, _ := src.counts(); n != before {
		t.Fatal("typing ran the search inside Update")
	}
	// The debounce fires; its Cmd is the search, which blocks in its goroutine.
	searchCmd := update(m.search.Pending())
	if searchCmd == nil {
		t.Fatal("the debounce started no search")
	}
	stale := make(chan tea.Msg, 1)
	go func() { stale <- searchCmd() }()
	// Typing on while the search is stuck still returns at once.
	update(uitest.Key("a"))
	update(uitest.Key("c"))
	if got := m.search.Value(); got != "fac" {
		t.Fatalf("search box holds %q, want fac", got)
	}
	close(src.gate)
	msg := <-stale
	total := m.list.total
	update(msg)
	if m.list.total != total || !m.list.stale {
		t.Errorf("a result for an older query was applied (total %d → %d)", total, m.list.total)
	}
	update(uitest.Key("esc"))
	if m.Capturing() {
		t.Error("esc did not leave the search box")
	}
}

// TestHighlightedMatches shows the index's fragments with the matches
// styled and the markers gone.
func TestHighlightedMatches(t *testing.T) {
	t.Parallel()
	m := newFakeScreen(t, &fakeSource{n: 3}, 90, 20)
	m.search.SetValue("stars")
	uitest.Drain(t, m, m.runSearch())
	v := m.View()
	if !strings.Contains(v, "lemma about stars here") || strings.Contains(v, "<mark>") {
		t.Errorf("the fragment is not shown highlighted:\n%s", v)
	}
	if got := m.highlight("a " + app.MarkStart + "b" + app.MarkEnd + " c"); got != "a "+m.Styles.Marked.Render("b")+" c" {
		t.Errorf("highlight = %q", got)
	}
}

// TestDetailSendsFocus: each record whose detail loads becomes the focus,
// so the probe console attaches to the record the operator is looking at.
func TestDetailSendsFocus(t *testing.T) {
	t.Parallel()
	m := NewWithSource(common.NewCommon(), common.Deps{}, &fakeSource{n: 50})
	m.SetSize(120, 30)
	if got := focuses(uitest.Drain(t, m, m.Init())); !slices.Equal(got, []common.Focus{{Kind: "record", ID: recID(0)}}) {
		t.Errorf("opening the screen focused %v, want record %s", got, recID(0))
	}
	_, cmd := m.Update(uitest.Key("j"))
	if got := focuses(uitest.Drain(t, m, cmd)); !slices.Equal(got, []common.Focus{{Kind: "record", ID: recID(1)}}) {
		t.Errorf("moving down focused %v, want record %s", got, recID(1))
	}
}

func focuses(msgs []tea.Msg) []common.Focus {
	var out []common.Focus
	for _, msg := range msgs {
		if f, ok := msg.(common.Focus); ok {
			out = append(out, f)
		}
	}
	return out
}
