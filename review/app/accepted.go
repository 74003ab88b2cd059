package app

import (
	"errors"
	"fmt"

	"github.com/memreview/memreview/review"
)

// ProposedRecord is the record accepting proposal id as proposed writes,
// read now: for a merge proposal, its record with the content of every
// target it does not say folded in (review.AcceptedRecord), which is also
// what an operator's edit starts from. A proposal without a record (skip,
// delete) is an error naming verb, the verb the caller means to apply.
func (s *Service) ProposedRecord(id string, verb review.Verb) (review.Record, error) {
	p, err := s.b.Proposal(id)
	if err != nil {
		return review.Record{}, err
	}
	if p.Record == nil {
		return review.Record{}, fmt.Errorf("%s %s: a %s proposal has no record to %s", verb, p.ID, p.Op, verb)
	}
	var targets []*review.Record
	for _, t := range p.Targets {
		r, err := s.b.Record(t.ID)
		if err != nil && !errors.Is(err, review.ErrNotFound) {
			return review.Record{}, err
		}
		targets = append(targets, r)
	}
	return *review.AcceptedRecord(p, targets), nil
}
