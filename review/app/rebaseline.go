package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/memreview/memreview/review"
)

// Rebaseline takes the last verify result of checks of record id as their
// expected results, after a person has looked at what the environment says
// now and holds it true: the record stops being suspect. checks are 1-based;
// none means every check whose last verify did not hold. version is the
// version the person looked at (0: not checked); a record changed since is
// a *review.ConflictError and nothing is written. The new version is a
// person's edit by operator (the service's when "") whose note says which
// checks took which verify's output, then the note given.
func (s *Service) Rebaseline(ctx context.Context, id string, version int, checks []int, operator, note string) (*review.Decision, error) {
	r, err := s.b.Record(id)
	if err != nil {
		return nil, fmt.Errorf("rebaseline: %w", err)
	}
	if r.Status != review.Active {
		return nil, fmt.Errorf("rebaseline %s: the record is %s", id, r.Status)
	}
	if len(r.Checks) == 0 {
		return nil, fmt.Errorf("rebaseline %s: the record has no checks", id)
	}
	results, err := s.b.CheckResults(id)
	if err != nil {
		return nil, fmt.Errorf("rebaseline %s: %w", id, err)
	}
	byCheck := map[int]review.CheckResult{}
	for _, c := range results {
		if (c.Version == 0 || c.Version == r.Version) && c.Index >= 0 && c.Index < len(r.Checks) &&
			c.Env == r.Checks[c.Index].Env && c.Input == r.Checks[c.Index].Input {
			byCheck[c.Index+1] = c
		}
	}
	if len(checks) == 0 {
		for n, c := range byCheck {
			if !review.Holds(c.Verdict) {
				checks = append(checks, n)
			}
		}
		if len(checks) == 0 {
			return nil, fmt.Errorf("rebaseline %s: no check failed at the last verify (v%d); nothing to re-baseline", id, r.Version)
		}
	}
	slices.Sort(checks)
	checks = slices.Compact(checks)
	rec := r.Clone()
	rec.Checks = slices.Clone(r.Checks)
	var parts []string
	for _, n := range checks {
		if n < 1 || n > len(r.Checks) {
			return nil, fmt.Errorf("rebaseline %s: the record has no check %d (it has %d)", id, n, len(r.Checks))
		}
		c, ok := byCheck[n]
		if !ok {
			return nil, fmt.Errorf("rebaseline %s: check %d has no verify result for v%d; verify it first (v on the bank screen, or memreview verify)", id, n, r.Version)
		}
		if !c.Now.OK() {
			return nil, fmt.Errorf("rebaseline %s: check %d fails now (%s); a failing probe is no baseline: edit the check instead", id, n, c.Now.Error)
		}
		rec.Checks[n-1].Expect = c.Now
		parts = append(parts, fmt.Sprintf("check %d", n))
	}
	at := byCheck[checks[0]].At.UTC().Format("2006-01-02 15:04")
	why := "re-baseline " + strings.Join(parts, ", ") + " from the verify of " + at
	if note != "" {
		why += "; " + note
	}
	if version != 0 {
		rec.Version = version
	}
	return s.DecideRecords(ctx, review.RecordRequest{Verb: review.Edit, IDs: []string{id}, Record: &rec, Operator: operator, Note: why})
}
