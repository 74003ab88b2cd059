package app

import (
	"fmt"
	"strings"
	"time"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
)

// Search runs a search on the bank's index; it sees every write this
// process made and, within the index owner's poll, every other process's.
func (s *Service) Search(req index.Request) (*index.Results, error) {
	ix, err := s.index()
	if err != nil {
		return nil, err
	}
	return ix.Search(req, s.wrote.Load())
}

// HideRetired leaves retired records out of a records search, as the
// bank screen and 'memreview search' do, unless the request filters on
// status or its query names one (status:retired).
func HideRetired(req *index.Request) {
	if req.Type != "record" || len(req.Filters["status"]) > 0 || strings.Contains(req.Query, "status:") {
		return
	}
	if req.Filters == nil {
		req.Filters = map[string][]string{}
	}
	req.Filters["status"] = []string{string(review.Active)}
}

// RetrieveRequest is one retrieval call: the records a task agent should
// be given for Task within Scope.
type RetrieveRequest struct {
	Task  string
	Scope review.Scope
	K     int // 0: 5
	// Client names who asked ("cli", an MCP client); TaskID the task (a
	// trajectory id when the bank has it). Both go to the retrieval log.
	Client, TaskID string
	// Preview: a person looking, not an agent; nothing is logged.
	Preview bool
}

// Retrieved is one record given to a task agent.
type Retrieved struct {
	Score  float64       `json:"score"`
	Record review.Record `json:"record"`
}

// Retrieve returns the records a task agent should be given (see
// index.Retrieve for the ranking) and, unless req.Preview, logs the
// retrieval. A hit whose record is gone from the store is left out.
func (s *Service) Retrieve(req RetrieveRequest) ([]Retrieved, error) {
	ix, err := s.index()
	if err != nil {
		return nil, err
	}
	hits, err := ix.Retrieve(req.Task, req.Scope, req.K, s.wrote.Load())
	if err != nil {
		return nil, err
	}
	out := make([]Retrieved, 0, len(hits))
	ids := make([]string, 0, len(hits))
	for _, h := range hits {
		r, err := s.b.Record(h.ID)
		if err != nil {
			continue
		}
		out = append(out, Retrieved{Score: h.Score, Record: *r})
		ids = append(ids, r.ID)
	}
	if !req.Preview {
		if err := s.rlog.log(s.b, review.Retrieval{Client: req.Client, TaskID: req.TaskID, Task: req.Task, Records: ids}); err != nil {
			s.opt.Warnf("retrieval for %q was not logged: %v", req.Task, err)
		}
	}
	return out, nil
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
// another owner to leave) and returns the index itself, for front ends
// that still read it directly. Other processes' searches are then served
// by this one. It fails when the index is not a shared local one.
func (s *Service) HoldIndex(wait time.Duration) (*index.Index, error) {
	ix, err := s.index()
	if err != nil {
		return nil, err
	}
	h, ok := ix.(interface {
		Hold(time.Duration) (*index.Index, error)
	})
	if !ok {
		return nil, fmt.Errorf("service: this bank's index cannot be held by one process")
	}
	return h.Hold(wait)
}
