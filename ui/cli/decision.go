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
	svc, err := c.service()
	if err != nil {
		return err
	}
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
	if len(d.NoBaseline) > 0 {
		fmt.Fprintf(c.stdout, "  %s\n", review.NoBaselineText(d.NoBaseline))
	}
	return nil
}

// proposedRecord returns the record accepting a proposal writes (for a
// merge, with its targets' content folded in), for the operator to change
// before deciding.
func proposedRecord(s *app.Service, id string, verb review.Verb) (review.Record, error) {
	return s.ProposedRecord(id, verb)
}
