package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/memreview/memreview/review"
)

// applies reports whether a verb writes what the proposal proposes into
// the bank (the verbs a flagged proposal needs an acknowledgement for).
func applies(v review.Verb) bool {
	return v == review.Accept || v == review.Narrow || v == review.Edit || v == review.Merge
}

// checkFlagged refuses to apply a flagged proposal unless req
// acknowledges its findings. With an edited record (narrow, edit, merge)
// the record as the operator left it is screened instead: an operator who
// removed the poison needs no acknowledgement. An acknowledged decision's
// note names what was acknowledged.
func (s *Service) checkFlagged(req *review.DecideRequest) error {
	if !applies(req.Verb) {
		return nil
	}
	fs, err := s.findingsToApply(req)
	if err != nil || len(fs) == 0 {
		return err
	}
	if !req.AckFindings {
		return &review.FlaggedError{Proposal: req.Proposal, Findings: fs}
	}
	ack := fmt.Sprintf("[accepted despite %d screen finding%s: %s]", len(fs), plural(len(fs)), fs[0])
	if req.Note == "" {
		req.Note = ack
	} else {
		req.Note += " " + ack
	}
	return nil
}

// findingsToApply are the findings in what deciding req would write.
func (s *Service) findingsToApply(req *review.DecideRequest) ([]review.Finding, error) {
	if req.Record != nil {
		sc, _, err := s.screener()
		if err != nil {
			return nil, err
		}
		return Findings(sc.ScreenFields(RecordFields(req.Record)...)), nil
	}
	p, err := s.b.Proposal(req.Proposal)
	if errors.Is(err, review.ErrNotFound) {
		return nil, nil // the store says so, as it always has
	}
	if err != nil {
		return nil, err
	}
	if p.Screen == nil || p.Screen.Rules != ScreenRules {
		fs, err := s.ProposalFindings(p.ID)
		if err != nil {
			return nil, err
		}
		p.Screen = &review.Screening{Rules: ScreenRules, Findings: fs}
	}
	return p.RecordFindings(), nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// DecideBulk decides verb on each proposal, one decision each, in order,
// stopping at the first failure. It refuses — before deciding any — to
// apply a flagged proposal in bulk (accept, narrow, edit, merge):
// each of those is decided on its own, with its findings acknowledged.
// It returns the decisions made.
func (s *Service) DecideBulk(ctx context.Context, ids []string, verb review.Verb, operator, note string) ([]*review.Decision, error) {
	if applies(verb) {
		for _, id := range ids {
			fs, err := s.findingsToApply(&review.DecideRequest{Proposal: id, Verb: verb})
			if err != nil {
				return nil, err
			}
			if len(fs) > 0 {
				return nil, &review.FlaggedError{Proposal: id, Findings: fs, Bulk: true}
			}
		}
	}
	var out []*review.Decision
	for _, id := range ids {
		d, err := s.Decide(ctx, review.DecideRequest{Proposal: id, Verb: verb, Operator: operator, Note: note})
		if err != nil {
			return out, fmt.Errorf("%s: %w", id, err)
		}
		out = append(out, d)
	}
	return out, nil
}
