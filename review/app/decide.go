package app

import (
	"context"
	"time"

	"github.com/memreview/memreview/review"
)

// Decide commits an operator's decision on a proposal, then brings the
// index up to date. A check of the record it writes that has no baseline
// runs live first and takes its result as one (baseline.go). req.Operator defaults to the service's operator. A
// proposal decided elsewhere, or a target changed since it was proposed,
// is a *review.ConflictError and nothing is applied.
func (s *Service) Decide(ctx context.Context, req review.DecideRequest) (*review.Decision, error) {
	if req.Operator == "" {
		req.Operator = s.opt.Operator
	}
	start := time.Now()
	if err := s.checkFlagged(&req); err != nil {
		return nil, err
	}
	if err := s.baselineProposal(ctx, req); err != nil {
		return nil, err
	}
	d, err := s.b.Decide(ctx, req)
	if err != nil {
		return nil, err
	}
	s.afterWrite("decision " + d.ID)
	s.traceDecision(ctx, start, d)
	return d, nil
}

// DecideRecords commits an operator's change to records outside any
// proposal (edit, narrow, delete, merge), then brings the index up to
// date; a check saved without a baseline runs live first (baseline.go).
func (s *Service) DecideRecords(ctx context.Context, req review.RecordRequest) (*review.Decision, error) {
	if req.Operator == "" {
		req.Operator = s.opt.Operator
	}
	start := time.Now()
	if err := s.baselineRecord(ctx, &req); err != nil {
		return nil, err
	}
	d, err := s.b.DecideRecords(ctx, req)
	if err != nil {
		return nil, err
	}
	s.afterWrite("decision " + d.ID)
	s.traceDecision(ctx, start, d)
	return d, nil
}

// Undo reverses a decision ("" = the last one not yet undone), then brings
// the index up to date.
func (s *Service) Undo(ctx context.Context, decisionID, operator, note string) (*review.Decision, error) {
	if operator == "" {
		operator = s.opt.Operator
	}
	start := time.Now()
	d, err := s.b.Undo(ctx, decisionID, operator, note)
	if err != nil {
		return nil, err
	}
	s.afterWrite("undo " + d.ID)
	s.traceDecision(ctx, start, d)
	return d, nil
}

// AddProposals queues proposals (and the probe runs they cite) in one
// transaction: an agent's or outside curator's write is always a pending
// proposal, never a record.
func (s *Service) AddProposals(ps []review.Proposal, runs []review.ProbeRun) error {
	start := time.Now()
	if err := s.screenProposals(ps, func(i int) (string, int) { return ps[i].ID, 0 }); err != nil {
		return err
	}
	if err := s.b.AddProposals(ps, runs); err != nil {
		return err
	}
	s.afterWrite("proposals")
	s.traceProposals(start, ps)
	return nil
}

// Propose queues proposals from an agent or an outside curator: each is
// pending whatever it says, its targets must exist (their current version
// is filled in when unset), and one bad proposal queues none.
func (s *Service) Propose(ps []review.Proposal, runs []review.ProbeRun) error {
	for i := range ps {
		ps[i].Status = review.Pending
	}
	return s.AddProposals(ps, runs)
}

// AttachRun stores a probe run and attaches it to a proposal or record as
// evidence, in one transaction, and returns the run's id.
func (s *Service) AttachRun(run review.ProbeRun, kind, id, actor string) (string, error) {
	if actor == "" {
		actor = s.opt.Operator
	}
	rid, err := s.b.AttachRun(run, kind, id, actor)
	if err != nil {
		return "", err
	}
	s.afterWrite("attach " + rid)
	return rid, nil
}
