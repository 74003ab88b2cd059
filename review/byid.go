package review

import "strings"

// byIDChunk is how many ids one IN (...) query names.
const byIDChunk = 500

// inChunks runs read on ids cut into chunks of byIDChunk, each as the
// placeholder list "?, ?, …" and its arguments.
func inChunks(ids []string, read func(placeholders string, args []any) error) error {
	for lo := 0; lo < len(ids); lo += byIDChunk {
		part := ids[lo:min(lo+byIDChunk, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		if err := read("?"+strings.Repeat(", ?", len(part)-1), args); err != nil {
			return err
		}
	}
	return nil
}

// ProposalsByID returns each proposal in ids that the bank holds, in a few
// queries (one per 500 ids) rather than one per id, as RecordsByID does
// for records; ids it does not hold are left out. The index reads the
// items changed after its sequence with it (index.Source's bulk reads).
func (s *Store) ProposalsByID(ids []string) (map[string]*Proposal, error) {
	out := make(map[string]*Proposal, len(ids))
	err := inChunks(ids, func(in string, args []any) error {
		ps, err := s.proposals(`WHERE id IN (`+in+`)`, args...)
		for i := range ps {
			out[ps[i].ID] = &ps[i]
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// TrajectoriesByID is ProposalsByID for trajectories.
func (s *Store) TrajectoriesByID(ids []string) (map[string]*Trajectory, error) {
	out := make(map[string]*Trajectory, len(ids))
	err := inChunks(ids, func(in string, args []any) error {
		ts, err := queryRows(s.db, `SELECT body FROM trajectories WHERE id IN (`+in+`)`, args, scanBody[Trajectory])
		for i := range ts {
			out[ts[i].ID] = &ts[i]
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
