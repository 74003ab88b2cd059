package app

import "slices"

// MergeChain follows a record's merges: the record it was merged into,
// the one that one was merged into later, and so on, to the record that
// holds its content now (the last; nil when id was never merged). A chain
// that loops or names a missing record ends where it breaks.
func (s *Service) MergeChain(id string) ([]string, error) {
	var chain []string
	for cur := id; ; {
		r, err := s.b.Record(cur)
		if err != nil {
			if len(chain) > 0 {
				return chain, nil // the chain names a record that is gone: it ends there
			}
			return nil, err
		}
		next := r.Provenance.MergedInto
		if next == "" || next == id || slices.Contains(chain, next) {
			return chain, nil
		}
		chain = append(chain, next)
		cur = next
	}
}
