package app

import (
	"context"
	"slices"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

// Checks saved without a baseline. A check added or edited in a form has
// no expected result: written so, the record's next verify would have
// nothing to compare it with. Every decision that writes a record first
// runs each such check live, as p does, and the check takes the result as
// its baseline (the decision lists it in Baselines, history says so); one
// that fails when run keeps none (Decision.NoBaseline).

// baselineProposal runs live, and saves on the proposal, each check of the
// record the decision writes that has no baseline and no live run the
// store would take as one; the store then takes it (review.SetBaselines).
// The runs happen before the decision's transaction: a failed decision
// leaves them as live runs of the proposal, as p's.
func (s *Service) baselineProposal(ctx context.Context, req review.DecideRequest) error {
	switch req.Verb {
	case review.Reject, review.Defer, review.Delete:
		return nil
	}
	p, err := s.b.Proposal(req.Proposal)
	if err != nil || p.Record == nil || p.Op == review.OpSkip || p.Op == review.OpDelete || !p.Status.Open() {
		return nil // the store says what is wrong
	}
	rec := req.Record
	if rec == nil {
		r, err := s.ProposedRecord(p.ID, req.Verb)
		if err != nil {
			return nil
		}
		rec = &r
	}
	runs, err := s.b.ProbeRunsFor("proposal", p.ID)
	if err != nil {
		return err
	}
	var live []review.ProbeRun
	for _, r := range runs {
		if r.Live() {
			live = append(live, r)
		}
	}
	for _, n := range review.Unbaselined(rec, live) {
		c := rec.Checks[n-1]
		it := review.LiveItem{Expect: probe.Result{Env: c.Env, Input: c.Input}, Check: n}
		if _, err := s.RunLive(ctx, p.ID, it, req.Operator); err != nil && ctx.Err() != nil {
			return err
		}
	}
	return nil
}

// baselineRecord runs live each check of req.Record that has no baseline,
// saves each clean run as a probe run and takes its result as the check's
// expected result, listing it in req.Baselines and the record's probe
// runs. The record is copied before it changes.
func (s *Service) baselineRecord(ctx context.Context, req *review.RecordRequest) error {
	if req.Record == nil || req.Verb == review.Delete {
		return nil
	}
	need := review.Unbaselined(req.Record, nil)
	if len(need) == 0 {
		return nil
	}
	rec := req.Record.Clone()
	for _, n := range need {
		c := rec.Checks[n-1]
		res := s.Rerun(ctx, probe.Result{Env: c.Env, Input: c.Input})
		if err := ctx.Err(); err != nil {
			return err
		}
		if !res.OK() {
			continue
		}
		run := review.ProbeRun{Result: res, Actor: req.Operator, Repeats: review.RepeatsCheck, At: s.b.Now()}
		id, err := s.b.SaveProbeRun(run)
		if err != nil {
			return err
		}
		rec.Checks[n-1].Expect = res
		if !slices.Contains(rec.Provenance.ProbeRuns, id) {
			rec.Provenance.ProbeRuns = append(rec.Provenance.ProbeRuns, id)
		}
		req.Baselines = append(req.Baselines, review.Baseline{Check: n, Run: id})
	}
	req.Record = &rec
	return nil
}
