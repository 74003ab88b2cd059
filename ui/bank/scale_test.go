package bank

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/uitest"
)

// TestSpaceKeepsResults: a search that reads to the index as the one
// shown (a space typed after a term) is not run again; the rows stay, and
// paging further down still loads the next page under the new query.
func TestSpaceKeepsResults(t *testing.T) {
	t.Parallel()
	src := &fakeSource{n: 1000}
	m := newFakeScreen(t, src, 90, 30)
	typeRune := func(r string) {
		t.Helper()
		_, cmd := m.Update(uitest.Key(r))
		uitest.Drain(t, m, cmd)
		uitest.Drain(t, m, func() tea.Msg { return m.search.Pending() }) // the debounce, at once
	}
	_, cmd := m.Update(uitest.Key("/"))
	uitest.Drain(t, m, cmd)
	for _, r := range "join" {
		typeRune(string(r))
	}
	before, _ := src.counts()
	if m.searchedAs != "+join" || m.list.stale {
		t.Fatalf("after typing join: searched as %q, stale %v", m.searchedAs, m.list.stale)
	}
	typeRune(" ")
	if after, _ := src.counts(); after != before {
		t.Errorf("a space after join searched again: %d searches, had %d", after, before)
	}
	if m.search.Value() != "join " || !strings.Contains(m.View(), "rec_000000") {
		t.Errorf("after the space: query %q, rows:\n%s", m.search.Value(), m.View())
	}
	_, cmd = m.Update(uitest.Key("enter"))
	uitest.Drain(t, m, cmd)
	for range pageSize + 5 { // into page 1
		_, cmd := m.Update(uitest.Key("j"))
		uitest.Drain(t, m, cmd)
	}
	if _, ok := m.list.hit(pageSize + 4); !ok || !strings.Contains(m.View(), "rec_000104") {
		t.Errorf("page 1 did not load after the kept results:\n%s", m.View())
	}
	typeRune2 := func(q string) {
		_, cmd := m.Update(uitest.Key("/"))
		uitest.Drain(t, m, cmd)
		for _, r := range q {
			typeRune(string(r))
		}
	}
	typeRune2("x")
	if m.searchedAs != "+join +x" {
		t.Errorf("a new term was not searched: searched as %q", m.searchedAs)
	}
}

// TestLargeBlankListEstimatesFacets: the blank list of active records of
// a large result asks the index for its facets without the status filter
// (term counts, not a count over every hit) and the picker marks the
// counts that include retired records with ≈; a small one, or a typed
// query, counts over its hits as before.
func TestLargeBlankListEstimatesFacets(t *testing.T) {
	t.Parallel()
	facetReq := func(src *fakeSource) app.SearchRequest {
		t.Helper()
		for _, r := range src.searches {
			if len(r.Facets) > 0 {
				return r
			}
		}
		t.Fatal("no facet request")
		return app.SearchRequest{}
	}
	openPicker := func(m *Model) string {
		_, cmd := m.Update(uitest.Key("f"))
		uitest.Drain(t, m, cmd)
		v := ansi.Strip(m.View())
		_, cmd = m.Update(uitest.Key("esc"))
		uitest.Drain(t, m, cmd)
		return v
	}
	big := &fakeSource{n: 100_000}
	m := newFakeScreen(t, big, 120, 40)
	if r := facetReq(big); len(r.Filters) != 0 || !r.WithRetired {
		t.Errorf("100,000 hits: the facet request filters on %v (with retired: %v); want none, retired included (term counts)", r.Filters, r.WithRetired)
	}
	if v := openPicker(m); !strings.Contains(v, "fact ≈ 100,000") || !strings.Contains(v, "include retired") {
		t.Errorf("100,000 hits: the picker does not mark the estimate:\n%s", v)
	}
	small := &fakeSource{n: 100}
	m = newFakeScreen(t, small, 120, 40)
	if r := facetReq(small); r.WithRetired {
		t.Errorf("100 hits: the facet request counts retired records too; want the service's default (active only)")
	}
	if v := openPicker(m); strings.Contains(v, "≈") || !strings.Contains(v, "fact 100") {
		t.Errorf("100 hits: the picker shows estimates:\n%s", v)
	}
}
