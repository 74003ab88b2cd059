package review

import "slices"

// Clone returns a copy of r that shares no slice or pointer with it, so
// that a form or a merge can change the copy freely.
func (r *Record) Clone() Record {
	c := *r
	c.Scope.Tags = slices.Clone(r.Scope.Tags)
	c.Steps = slices.Clone(r.Steps)
	c.Checks = slices.Clone(r.Checks)
	c.Provenance.ProbeRuns = slices.Clone(r.Provenance.ProbeRuns)
	c.Provenance.MergedFrom = slices.Clone(r.Provenance.MergedFrom)
	if r.Provenance.Steps != nil {
		steps := *r.Provenance.Steps
		c.Provenance.Steps = &steps
	}
	return c
}
