package bank

import (
	"strings"
	"testing"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/uitest"
)

// estimatingSource answers like the index on a large result set: the total
// of a page request, and the facets of a facets request, are estimates.
type estimatingSource struct{ fakeSource }

func (e *estimatingSource) Search(req app.SearchRequest) (*app.SearchResults, error) {
	res, err := e.fakeSource.Search(req)
	if err == nil && strings.TrimSpace(req.Query) != "" {
		res.Estimated = true
	}
	return res, err
}

// A typed search whose count the index estimated says so in the status
// line, the title and the list frame, and its sampled facet counts carry
// "≈" in the picker; the blank list (exact) does not.
func TestEstimatedCountsAreMarked(t *testing.T) {
	t.Parallel()
	m := newFakeScreen(t, &estimatingSource{fakeSource{n: 40_800}}, 200, 40)
	if v := m.View(); strings.Contains(v, "≈") || !strings.Contains(v, "40,800 records") {
		t.Fatalf("the exact blank list shows an estimate or no count:\n%s", v)
	}
	typeQuery(t, m, "join")
	v := m.View()
	for _, want := range []string{"≈ 40,800 records", "of ≈ 40,800"} {
		if !strings.Contains(v, want) {
			t.Errorf("after a search with an estimated total the screen lacks %q:\n%s", want, v)
		}
	}
	if !strings.Contains(m.Title(), "≈ 40,800 records") {
		t.Errorf("title %q does not mark the estimate", m.Title())
	}
	sendKey(t, m, uitest.Key("f"))
	if v := m.View(); !strings.Contains(v, "≈ 40,800") || !strings.Contains(v, "scaled from a sample") {
		t.Errorf("the facet picker does not mark sampled counts:\n%s", v)
	}
}

// rankingSource answers a typed search like the index on a result set
// over its rank bound: an estimated total, the first 100,000 ranked.
type rankingSource struct{ fakeSource }

func (r *rankingSource) Search(req app.SearchRequest) (*app.SearchResults, error) {
	res, err := r.fakeSource.Search(req)
	if err == nil && strings.TrimSpace(req.Query) != "" {
		res.Estimated, res.Ranked = true, 100_000
	}
	return res, err
}

// A typed search whose hits were ranked on the first 100,000 only says so
// next to its estimated count; the blank list and a new exact search do
// not.
func TestRankedSearchIsMarked(t *testing.T) {
	t.Parallel()
	src := &rankingSource{fakeSource{n: 393_000}}
	m := newFakeScreen(t, src, 200, 40)
	const mark = "best of the first 100,000 ranked"
	if v := m.View(); strings.Contains(v, mark) {
		t.Fatalf("the blank list says it was ranked:\n%s", v)
	}
	typeQuery(t, m, "join")
	if v := m.View(); !strings.Contains(v, "≈ 393,000 records (") || !strings.Contains(v, mark) {
		t.Errorf("after a ranked search the status line lacks %q:\n%s", mark, v)
	}
	// The list ends at the last hit ranked.
	sendKey(t, m, uitest.Key("G"))
	if v := m.View(); !strings.Contains(v, "–100,000 of ≈ 393,000") {
		t.Errorf("at the bottom the list frame does not end at the 100,000th hit:\n%s", v)
	}
	sendKey(t, m, uitest.Key("/"))
	for range "join" {
		sendKey(t, m, uitest.Key("backspace"))
	}
	sendKey(t, m, uitest.Key("enter"))
	if v := m.View(); strings.Contains(v, mark) {
		t.Errorf("the blank list after a ranked search still says it was ranked:\n%s", v)
	}
}

// laggingSource answers like an index behind the bank while lagging is
// set: 5,000 changes behind, 1,500 changed items not searched.
type laggingSource struct {
	fakeSource
	lagging bool
}

func (l *laggingSource) Search(req app.SearchRequest) (*app.SearchResults, error) {
	res, err := l.fakeSource.Search(req)
	if err == nil && l.lagging {
		res.Behind, res.Direct, res.Unsearched = 5000, 3500, 1500
	}
	return res, err
}

// A search answered while the index is behind says how many changed
// items it did not search, and runs again (recheckBehind) until the
// index has caught up, when the note goes.
func TestBehindSearchSaysSoAndRunsAgain(t *testing.T) {
	t.Parallel()
	src := &laggingSource{fakeSource: fakeSource{n: 300}, lagging: true}
	m := newFakeScreen(t, src, 200, 40)
	const note = "index catching up: 1,500 changed items not searched yet"
	typeQuery(t, m, "join")
	if v := m.View(); !strings.Contains(v, note) {
		t.Fatalf("a search while behind lacks %q:\n%s", note, v)
	}
	src.lagging = false
	if v := m.View(); !strings.Contains(v, note) {
		t.Fatalf("the note went before the query ran again:\n%s", v)
	}
	_, cmd := m.Update(recheckBehind{seq: m.querySeq - 1}) // an older query's: ignored
	uitest.Drain(t, m, cmd)
	if v := m.View(); !strings.Contains(v, note) {
		t.Fatalf("an old query's recheck ran the search again:\n%s", v)
	}
	_, cmd = m.Update(recheckBehind{seq: m.querySeq})
	uitest.Drain(t, m, cmd)
	if v := m.View(); strings.Contains(v, "catching up") {
		t.Errorf("after the recheck, with the index caught up, the note stays:\n%s", v)
	}
}
