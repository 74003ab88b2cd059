package cli

import (
	"fmt"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

// decide opens the bank, commits one decision made by fn (the service
// brings the index up to date, or warns that it will catch up) and
// reports it: decide, merge, undo and rebaseline print through it.
func (c *call) decide(fn func(*app.Service) (*review.Decision, error)) error {
	svc, err := c.open()
	if err != nil {
		return err
	}
	defer svc.Close()
	d, err := fn(svc)
	if err != nil {
		return err
	}
	if c.json {
		return printJSON(c.stdout, d)
	}
	fmt.Fprintf(c.stdout, "%s: %s %s by %s\n", d.ID, d.Verb, d.Proposal, d.Operator)
	for _, ch := range d.Changes {
		status := ""
		if ch.AfterR != nil {
			status = string(ch.AfterR.Status)
		}
		fmt.Fprintf(c.stdout, "  %s v%d → v%d %s\n", ch.RecordID, ch.Before, ch.After, status)
	}
	if len(d.Baselines) > 0 {
		fmt.Fprintf(c.stdout, "  %s\n", review.BaselineText(d.Baselines))
	}
	return nil
}

// proposedRecord returns a copy of a proposal's record, for the operator
// to change before deciding.
func proposedRecord(s *app.Service, id string, verb review.Verb) (review.Record, error) {
	p, err := s.Proposal(id)
	if err != nil {
		return review.Record{}, err
	}
	if p.Record == nil {
		return review.Record{}, fmt.Errorf("%s %s: a %s proposal has no record to %s", verb, p.ID, p.Op, verb)
	}
	return *p.Record, nil
}
