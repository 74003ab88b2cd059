package app

// ProposalDecision: the one decision that closed a proposal, which the
// MCP server's proposal_status reports.

import (
	"github.com/memreview/memreview/review"
)

// ProposalDecision returns a proposal and the decision that closed it: nil
// while the proposal is open, or when its decision was undone.
func (s *Service) ProposalDecision(id string) (*review.Proposal, *review.Decision, error) {
	p, err := s.b.Proposal(id)
	if err != nil {
		return nil, nil, err
	}
	if p.Status.Open() {
		return p, nil, nil
	}
	ds, err := s.b.ProposalDecisions(id)
	if err != nil {
		return nil, nil, err
	}
	for i := len(ds) - 1; i >= 0; i-- {
		if d := ds[i]; d.Verb != review.Undo && d.UndoneBy == "" {
			return p, &d, nil
		}
	}
	return p, nil, nil
}
