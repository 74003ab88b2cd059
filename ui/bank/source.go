package bank

import (
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
)

// Source is what the screen reads: searches (paged, with facets), record
// details for the rows on screen, and one record's full detail. The program
// reads the bank's service (ServiceSource); tests pass fakes.
type Source interface {
	Search(app.SearchRequest) (*app.SearchResults, error)
	// SearchByWorth is a page of a search in worth order (best first, or
	// worst first); worth is every record's.
	SearchByWorth(req app.SearchRequest, worth map[string]review.Worth, worst bool) (*app.SearchResults, error)
	// Records returns the records with those ids; missing ones are left out.
	Records(ids []string) (map[string]*review.Record, error)
	Detail(id string) (*Detail, error)
}

// Detail is everything the detail pane shows about one record.
type Detail struct {
	Record  *review.Record
	History []review.Version       // oldest first
	Checks  []review.CheckResult   // last verify result of each check
	Uses    []review.TrajectoryUse // trajectories that retrieved it
	// MergedInto is where a merged record's content went: the record it
	// was merged into, then each later merge's (app.Service.MergeChain).
	MergedInto []string
	Eval       app.RecordEval // what eval runs say it and its decisions did
	EvalErr    string         // why Eval could not be read
}

// ServiceSource is the program's Source: the bank's service.
type ServiceSource struct {
	Service *app.Service
}

// Search runs req on the bank's index, except the blank list of one
// status in id order (what the screen opens on), which the service pages
// from the store (BrowseRecords): the index would sort every hit by id.
func (s ServiceSource) Search(req app.SearchRequest) (*app.SearchResults, error) {
	if st, ok := browseStatus(req); ok {
		if res, ok, err := s.Service.BrowseRecords(st, req.From, req.Size); ok {
			return res, err
		}
	}
	return s.Service.Search(req)
}

// browseStatus reports whether req is the blank list of one status in id
// order with nothing else asked (no facets, no highlights: a blank query
// marks nothing), and which status.
func browseStatus(req app.SearchRequest) (review.Status, bool) {
	st := req.Filters["status"]
	if strings.TrimSpace(req.Query) != "" || req.Type != "record" || len(req.Filters) != 1 || len(st) != 1 ||
		!slices.Equal(req.Sort, []string{"_id"}) || len(req.Facets) > 0 {
		return "", false
	}
	return review.Status(st[0]), true
}

// SearchByWorth is a page of req in worth order (app.Service.SearchByWorth).
func (s ServiceSource) SearchByWorth(req app.SearchRequest, worth map[string]review.Worth, worst bool) (*app.SearchResults, error) {
	return s.Service.SearchByWorth(req, worth, worst)
}

// Records reads the records with those ids (one read each, only those).
func (s ServiceSource) Records(ids []string) (map[string]*review.Record, error) {
	return s.Service.RecordsByID(ids)
}

// Detail reads a record with its history, checks and uses.
func (s ServiceSource) Detail(id string) (*Detail, error) {
	r, err := s.Service.Record(id)
	if err != nil {
		return nil, fmt.Errorf("load record %s: %w", id, err)
	}
	d := &Detail{Record: r}
	if d.History, err = s.Service.History(id); err != nil {
		return nil, fmt.Errorf("load the history of %s: %w", id, err)
	}
	if d.Checks, err = s.Service.CheckResults(id); err != nil {
		return nil, fmt.Errorf("load the check results of %s: %w", id, err)
	}
	if d.Uses, err = s.Service.RetrievedBy(id); err != nil {
		return nil, fmt.Errorf("load the trajectories that retrieved %s: %w", id, err)
	}
	if r.Provenance.MergedInto != "" {
		if d.MergedInto, err = s.Service.MergeChain(id); err != nil {
			return nil, fmt.Errorf("follow the merges of %s: %w", id, err)
		}
	}
	if d.Eval, err = s.Service.RecordEval(id); err != nil {
		d.EvalErr = "what eval runs say of it could not be read: " + err.Error()
	}
	return d, nil
}

// Background results. Each carries what asked for it and is dropped when
// the screen has moved on.

// pageLoaded is one page of hits of query seq.
type pageLoaded struct {
	seq, page int
	res       *app.SearchResults
	err       error
}

// facetsLoaded is the facet counts of query seq, asked for after its
// first page (the counts are over every hit, the page only its first rows).
type facetsLoaded struct {
	seq    int
	facets map[string][]app.FacetCount
	approx facetApprox
	err    error
}

// facetApprox says how a query's facet counts were taken; the picker
// shows the approximate ones with "≈".
type facetApprox int

const (
	facetsExact facetApprox = iota // counted over the hits
	// facetsWithRetired: the category and env counts are of every record,
	// retired ones too (estimateFacets).
	facetsWithRetired
	// facetsSampled: the index counted the facets on a sample of a large
	// result set and scaled them (app.SearchResults.Estimated).
	facetsSampled
)

// recordsLoaded is the detail of some rows, for cache generation gen.
type recordsLoaded struct {
	gen  int
	ids  []string
	recs map[string]*review.Record
	err  error
}

// detailLoaded is the selected record's detail.
type detailLoaded struct {
	seq int
	id  string
	d   *Detail
	err error
}

// pageSize is how many hits one index request pages in.
const pageSize = 100

// runSearch starts a new query from page 0. The old rows stay on screen
// until its first page arrives; then the cursor goes to the top.
func (m *Model) runSearch() tea.Cmd {
	m.toTop = true
	return m.research()
}

// research runs the current query again from page 0.
func (m *Model) research() tea.Cmd {
	m.searchedAs = app.QueryAsRead(m.search.Value())
	m.querySeq = m.search.Next()
	m.list.stale = true
	m.list.pending = map[int]bool{}
	return m.loadPage(0)
}

// keepResults answers a search that is due when the query reads to the
// index as the one shown (a space typed, a trailing AND): the results stay
// and nothing is searched again, only the query's sequence moves on so
// that the pages and counts still to come are asked for under it. false
// when a search must run (the results are not all in, or sorted by worth,
// which holds every hit of the old sequence).
func (m *Model) keepResults() (tea.Cmd, bool) {
	if !m.searched || m.list.stale || m.searchErr != "" || m.ws.order != byIndex ||
		app.QueryAsRead(m.search.Value()) != m.searchedAs {
		return nil, false
	}
	m.querySeq = m.search.Next()
	m.list.pending = map[int]bool{} // answers of the old sequence are dropped: ask again
	var facets tea.Cmd
	if m.facetsPending {
		facets = m.loadFacets()
	}
	return tea.Batch(m.fill(), facets), true
}

// request builds the search of page n of the current query (the service
// reads every term as required and hides retired records unless the facet
// or the query asks for them).
func (m *Model) request(page int) app.SearchRequest {
	filters := map[string][]string{}
	for f, vs := range m.filters {
		if len(vs) > 0 {
			filters[f] = append([]string(nil), vs...)
		}
	}
	q := m.search.Value()
	return app.SearchRequest{Query: q, Type: "record", Filters: filters, Sort: sortFor(q),
		From: page * pageSize, Size: pageSize, Highlight: strings.TrimSpace(q) != ""}
}

// sortFor orders hits: by id when the query is blank (every score is the
// same), else best first. Ties of score keep the index's order, which is
// stable from page to page of one index; breaking them by id instead made
// the index load the id of every hit (a second at 400,000 hits), and a
// merge of segments between two pages may now swap rows of equal score.
func sortFor(query string) []string {
	if strings.TrimSpace(query) == "" {
		return []string{"_id"}
	}
	return []string{"-_score"}
}

// loadFacets asks for the facet counts of the current query: one request
// for the counts alone, after the first page, so the rows do not wait for
// counting every hit.
func (m *Model) loadFacets() tea.Cmd {
	if m.src == nil {
		return nil
	}
	req := m.request(0)
	req.Sort, req.Size, req.Highlight, req.Facets = nil, 1, false, facetFields
	estimate := m.estimateFacets()
	if estimate {
		// The index answers from its term counts, and with the id order
		// from its id dictionary: no hit is visited.
		req.Filters, req.Sort, req.WithRetired = nil, []string{"_id"}, true
	}
	seq, src := m.querySeq, m.src
	m.facetsPending = true
	return func() tea.Msg {
		res, err := src.Search(req)
		if err != nil {
			return facetsLoaded{seq: seq, err: err}
		}
		approx := facetsExact
		switch {
		case estimate:
			approx = facetsWithRetired
		case res.Estimated:
			approx = facetsSampled
		}
		return facetsLoaded{seq: seq, facets: res.Facets, approx: approx}
	}
}

// estimateMin is the number of hits from which the blank list's facets
// are estimated.
const estimateMin = 50_000

// estimateFacets reports whether the current query's facets are taken
// from the index's term counts over every record rather than counted over
// its hits: the blank list of active records (what the screen opens on)
// of a large bank. Counting would visit every hit (seconds at a million
// records, again after every write); the term counts cost a few
// milliseconds. The status counts are exact; the category and env counts
// also count the retired records, so the picker shows them as estimates.
func (m *Model) estimateFacets() bool {
	if strings.TrimSpace(m.search.Value()) != "" || m.list.total < estimateMin {
		return false
	}
	for f, vs := range m.filters {
		if len(vs) > 0 && (f != "status" || len(vs) > 1 || vs[0] != string(review.Active)) {
			return false
		}
	}
	return true
}

// facetsLoaded keeps the counts of the current query.
func (m *Model) facetsLoaded(msg facetsLoaded) tea.Cmd {
	if msg.seq != m.querySeq {
		return nil // the query changed since
	}
	m.facetsPending = false
	if msg.err != nil {
		return common.NotifyErr("could not count the facets: " + msg.err.Error())
	}
	m.facets, m.facetsApprox = msg.facets, msg.approx
	return nil
}

// loadPage asks for page n of the current query.
func (m *Model) loadPage(n int) tea.Cmd {
	if m.src == nil {
		return nil
	}
	if m.ws.order != byIndex {
		return m.loadSortedPage(n)
	}
	m.list.pending[n] = true
	seq, src, req := m.querySeq, m.src, m.request(n)
	return func() tea.Msg {
		res, err := src.Search(req)
		return pageLoaded{seq: seq, page: n, res: res, err: err}
	}
}

// loadRecords asks for the detail of rows not cached yet.
func (m *Model) loadRecords(ids []string) tea.Cmd {
	if len(ids) == 0 || m.src == nil {
		return nil
	}
	for _, id := range ids {
		m.asked[id] = true
	}
	gen, src := m.gen, m.src
	return func() tea.Msg {
		recs, err := src.Records(ids)
		return recordsLoaded{gen: gen, ids: ids, recs: recs, err: err}
	}
}

// loadDetail asks for the selected record's detail.
func (m *Model) loadDetail() tea.Cmd {
	id := m.selected()
	m.detailSeq++
	m.reloadDetail = false
	if id == "" || m.src == nil {
		m.detail = nil
		m.renderDetail()
		return nil
	}
	if m.detail != nil && m.detail.Record != nil && m.detail.Record.ID != id || m.detailErr != "" {
		m.detail, m.detailErr = nil, ""
		m.renderDetail()
	}
	seq, src := m.detailSeq, m.src
	return func() tea.Msg {
		d, err := src.Detail(id)
		return detailLoaded{seq: seq, id: id, d: d, err: err}
	}
}
