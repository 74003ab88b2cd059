package formats

import (
	"errors"
	"fmt"

	"github.com/memreview/memreview/review"
)

// Store is what CheckProposalsInBank reads of the bank's store; store.Store,
// pg.Store and app.Store satisfy it.
type Store interface {
	Record(id string) (*review.Record, error)         // wrapped ErrNotFound when absent
	Trajectory(id string) (*review.Trajectory, error) // wrapped ErrNotFound when absent
}

// CheckProposalsInBank is CheckProposalTargets with the whole bank at hand:
// besides each proposal's shape and that every target exists, a target must
// be active (a retired record can only be the target of a skip), a cited
// trajectory must be in the bank, and every evidence step range and the
// proposed record's provenance steps must lie within that trajectory's
// steps. lines[i] is the line proposal i came from, as for
// CheckProposalTargets. Import and the MCP server's memory_propose both
// validate with it, so a proposal is refused the same way from either.
func CheckProposalsInBank(file string, ps []review.Proposal, lines []int, b Store) error {
	recs := map[string]*review.Record{}
	lookup := func(id string) (*review.Record, error) {
		if r, ok := recs[id]; ok {
			return r, nil
		}
		r, err := b.Record(id)
		if errors.Is(err, review.ErrNotFound) {
			r, err = nil, nil
		}
		if err != nil {
			return nil, err
		}
		recs[id] = r
		return r, nil
	}
	var lookupErr error
	exists := func(id string) bool {
		r, err := lookup(id)
		if err != nil && lookupErr == nil {
			lookupErr = err
		}
		return r != nil || err != nil
	}
	if err := CheckProposalTargets(file, ps, lines, exists); err != nil {
		return err
	}
	if lookupErr != nil {
		return fmt.Errorf("%s: read the bank: %w", fileName(file), lookupErr)
	}
	for i := range ps {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		p := &ps[i]
		for j, t := range p.Targets {
			if r := recs[t.ID]; r != nil && r.Status == review.Retired && p.Op != review.OpSkip {
				return inputErr(file, line, fmt.Sprintf("targets[%d].id", j), "record %q is retired; propose changes to active records only", t.ID)
			}
		}
		if err := checkSteps(file, line, p, b); err != nil {
			return err
		}
	}
	return nil
}

// checkSteps checks that a proposal's step ranges lie within its trajectory.
func checkSteps(file string, line int, p *review.Proposal, b Store) error {
	var ranges []review.StepRange
	var fields []string
	for i, s := range p.Evidence.Steps {
		ranges, fields = append(ranges, s), append(fields, fmt.Sprintf("evidence.steps[%d]", i))
	}
	if p.Record != nil && p.Record.Provenance.Steps != nil {
		ranges, fields = append(ranges, *p.Record.Provenance.Steps), append(fields, "record.provenance.steps")
	}
	traj := p.Trajectory
	if traj == "" && p.Record != nil {
		traj = p.Record.Provenance.Trajectory
	}
	if traj == "" {
		if len(ranges) > 0 {
			return inputErr(file, line, fields[0], "step ranges need the trajectory they come from (field \"trajectory\")")
		}
		return nil
	}
	t, err := b.Trajectory(traj)
	if errors.Is(err, review.ErrNotFound) {
		return inputErr(file, line, "trajectory", "no trajectory %q in the bank (import or submit it first)", traj)
	}
	if err != nil {
		return fmt.Errorf("%s: read trajectory %s: %w", fileName(file), traj, err)
	}
	for i, r := range ranges {
		if r.To > len(t.Steps) {
			return inputErr(file, line, fields[i], "steps %d..%d are outside trajectory %s, which has %d steps", r.From, r.To, traj, len(t.Steps))
		}
	}
	return nil
}
