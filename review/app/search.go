package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
)

// Search results, as the index gives them: front ends read these types
// through the service and never import the index.
type (
	// SearchResults is what a search found.
	SearchResults = index.Results
	// Hit is one search hit.
	Hit = index.Hit
	// FacetCount is one term of a facet and how many hits have it.
	FacetCount = index.FacetCount
)

// The marks around each match in Hit.Fragments.
const (
	MarkStart = index.MarkStart
	MarkEnd   = index.MarkEnd
)

// SearchRequest is a search as a person or an agent writes it. The
// service reads it by one policy, the same for every front end: every
// term, phrase and field:value must match (a query that says OR anywhere
// matches any), and retired records stay hidden unless the request filters
// on status or its query names one (status:retired).
type SearchRequest struct {
	// Query uses bleve's query-string syntax: terms, field:value,
	// +required, -excluded, "phrases", confidence:>0.7. Empty matches all.
	Query string
	// Type limits hits to "record", "proposal" or "trajectory"; "" = all.
	Type string
	// Filters maps a field to values: a hit must match one value of every
	// field named. They do not change scores.
	Filters map[string][]string
	// Facets names fields to count terms of ("category", "env", "status").
	Facets []string
	// Sort lists fields to order by, "-" first for descending; "_score" is
	// the relevance. Empty: best score first.
	Sort []string
	// From skips that many hits; Size caps the hits returned (0 = 20).
	From, Size int
	// Highlight asks for Hit.Fragments; Exact counts and ranks every hit
	// of a huge result set (else estimated, SearchResults.Estimated).
	Highlight, Exact bool
	// AnyTerm matches records with any of the query's terms, best first:
	// "records like this one" (the related list, the merge picker).
	AnyTerm bool
	// WithRetired keeps retired records in a records search that does not
	// filter on status (the bank screen's facet counts over every record).
	WithRetired bool
}

// QueryAsRead is query as the service reads it (AND by default), so a
// screen can tell whether an edit changed the search.
func QueryAsRead(query string) string { return index.RequireAll(query) }

// EscapeQuery makes text a literal query (every character its own).
func EscapeQuery(s string) string { return index.EscapeQuery(s) }

// LiteralWords is text's words as a query of literal terms.
func LiteralWords(s string) string { return index.LiteralWords(s) }

// Search runs a search on the bank's index by the service's policy (see
// SearchRequest); it sees every write this process made and, within the
// index owner's poll, every other process's.
func (s *Service) Search(req SearchRequest) (*SearchResults, error) {
	ir := index.Request{Query: req.Query, Type: req.Type, Filters: req.Filters, Facets: req.Facets, Sort: req.Sort,
		From: req.From, Size: req.Size, Highlight: req.Highlight, Exact: req.Exact}
	if !req.AnyTerm {
		ir.Query = index.RequireAll(ir.Query)
	}
	if !req.WithRetired {
		hideRetired(&ir)
	}
	res, err := s.search(ir)
	// A query the operator typed is named as typed, not as RequireAll
	// read it ("+\"unterminated").
	if qe := (*index.QueryError)(nil); errors.As(err, &qe) && qe.Query == ir.Query {
		qe.Query = req.Query
	}
	return res, err
}

// search runs an index request as it is.
func (s *Service) search(req index.Request) (*index.Results, error) {
	ix, err := s.index()
	if err != nil {
		return nil, err
	}
	return ix.Search(req, s.wrote.Load())
}

// hideRetired leaves retired records out of a records search unless the
// request filters on status or its query names one (status:retired).
func hideRetired(req *index.Request) {
	if req.Type != "record" || len(req.Filters["status"]) > 0 || strings.Contains(req.Query, "status:") {
		return
	}
	filters := map[string][]string{"status": {string(review.Active)}}
	for k, v := range req.Filters {
		filters[k] = v
	}
	req.Filters = filters
}

// RetrieveRequest is one retrieval call: the records a task agent should
// be given for Task within Scope.
type RetrieveRequest struct {
	Task  string
	Scope review.Scope
	K     int // 0: 5
	// Client names who asked ("cli", an MCP client); TaskID the task (the
	// id its run is stored under later). Both go to the retrieval log.
	Client, TaskID string
	// Session is the MCP session asking ("" outside one): the run that
	// session submits under TaskID is linked to these records (Import).
	Session string
	// Preview: a person looking, not an agent; nothing is logged.
	Preview bool
	// Select asks for LLM-guided selection (selection.go); [retrieval]
	// select in memreview.toml turns it on for every call.
	Select bool
	// Guidelines, when set, renders the records as the guidelines section
	// (guidelines.go); the retrieval log then lists the records it holds.
	Guidelines *GuidelineOptions
	// BM25Only ranks by BM25 alone, as before hybrid ranking: the eval
	// compares the live bank with snapshots of it, which have no vectors,
	// so every condition is ranked the same way.
	BM25Only bool
}

// Retrieved is one record given to a task agent, for every front end (the
// CLI's retrieve, the MCP server's memory_search). Hybrid retrieval
// (retrieval.go) also says how it ranked it: its rank in the BM25 and
// vector lists (nil where that list did not find it), the fused score
// before weighting and its vector similarity to the task. It differs from
// the index's index.Scored, an id and its BM25 score from which the
// service reads the record, and from Related, a record near another one.
type Retrieved struct {
	Score      float64       `json:"score"`
	Record     review.Record `json:"record"`
	BM25Rank   *int          `json:"-"`
	VectorRank *int          `json:"-"`
	RRF        float64       `json:"-"`
	Similarity float32       `json:"-"`
}

// Retrieve returns the records a task agent should be given, best first
// (hybrid BM25 and vector ranking, retrieval.go) and, unless req.Preview,
// logs the retrieval. A hit whose record is gone from the store is left
// out.
func (s *Service) Retrieve(req RetrieveRequest) ([]Retrieved, error) {
	res, err := s.RetrieveWith(context.Background(), req)
	if err != nil {
		return nil, err
	}
	return res.Records, nil
}

// Reindex rebuilds the index from the store (in whichever process owns
// it) and returns how many documents it holds.
func (s *Service) Reindex() (uint64, error) {
	ix, err := s.index()
	if err != nil {
		return 0, err
	}
	if err := ix.Rebuild(); err != nil {
		return 0, err
	}
	return ix.DocCount()
}

// IndexDocs is how many documents the index holds.
func (s *Service) IndexDocs() (uint64, error) {
	ix, err := s.index()
	if err != nil {
		return 0, err
	}
	return ix.DocCount()
}

// HoldIndex makes this process the index's owner (waiting up to wait for
// another owner to leave): other processes' searches are then served by
// this one. It fails when the index is not a shared local one.
func (s *Service) HoldIndex(wait time.Duration) error {
	ix, err := s.index()
	if err != nil {
		return err
	}
	h, ok := ix.(interface {
		Hold(time.Duration) (*index.Index, error)
	})
	if !ok {
		return fmt.Errorf("service: this bank's index cannot be held by one process")
	}
	_, err = h.Hold(wait)
	return err
}

// FollowIndex makes this process the index's owner (waiting up to wait for
// another owner to let go) and keeps the index caught up with every
// process's writes until ctx ends, or, with untilCaughtUp, until it holds
// the bank's changes as they were when it took over.
func (s *Service) FollowIndex(ctx context.Context, wait time.Duration, untilCaughtUp bool) error {
	ix, err := s.index()
	if err != nil {
		return err
	}
	h, ok := ix.(interface {
		Hold(time.Duration) (*index.Index, error)
	})
	if !ok {
		return fmt.Errorf("service: this bank's index cannot be held by one process")
	}
	own, err := h.Hold(wait)
	if err != nil {
		return err
	}
	if untilCaughtUp {
		done := make(chan struct{})
		go func() { own.WaitCatchUp(); close(done) }()
		select {
		case <-done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	<-ctx.Done()
	return nil
}
