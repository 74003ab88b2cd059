package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

// Live runs: p on the review screen, through the service (review/live.go
// says what they are for).

// LiveItems lists what a live run of the proposal runs (its probe runs,
// then the checks of its record that none repeats), each with its latest
// saved live run.
func (s *Service) LiveItems(proposalID string) ([]review.LiveItem, error) {
	p, err := s.b.Proposal(proposalID)
	if err != nil {
		return nil, err
	}
	runs, err := s.b.ProbeRunsFor("proposal", proposalID)
	if err != nil {
		return nil, err
	}
	return review.LiveItems(p, runs), nil
}

// RunLive runs one item of a proposal live (within review.CheckTimeout)
// and saves the result as a probe run attached to the proposal, marked
// with what it repeats; actor defaults to the service's operator. It
// returns the saved run; when saving fails, the run is returned with no
// id along with the error.
func (s *Service) RunLive(ctx context.Context, proposalID string, it review.LiveItem, actor string) (review.ProbeRun, error) {
	if actor == "" {
		actor = s.opt.Operator
	}
	run := review.ProbeRun{Result: s.Rerun(ctx, it.Expect), Actor: actor, Repeats: it.Repeats()}
	run.At = s.b.Now()
	if err := ctx.Err(); err != nil {
		return run, fmt.Errorf("live run of %s: %w (not saved)", proposalID, err)
	}
	id, err := s.b.AttachRun(run, "proposal", proposalID, actor)
	if err != nil {
		return run, fmt.Errorf("save the live run of %s: %w", proposalID, err)
	}
	run.ID = id
	s.afterWrite("live run " + id)
	return run, nil
}

// Lived is one item of a proposal run live: what it was compared with, the
// saved run and the verdict.
type Lived struct {
	Item    review.LiveItem `json:"item"`
	Run     review.ProbeRun `json:"run"`
	Verdict probe.Verdict   `json:"verdict"`
}

// RunLiveAll runs every item of a proposal live, one after another, and
// saves each (what p does, for the CLI and tests). The runs saved before
// an error stay saved.
func (s *Service) RunLiveAll(ctx context.Context, proposalID, actor string) ([]Lived, error) {
	items, err := s.LiveItems(proposalID)
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("proposal %s has no probe runs and its record no checks: nothing to run", proposalID)
	}
	var out []Lived
	var errs []error
	for _, it := range items {
		run, err := s.RunLive(ctx, proposalID, it, actor)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, Lived{Item: it, Run: run, Verdict: probe.Compare(it.Expect, run.Result)})
	}
	return out, errors.Join(errs...)
}
