package app

import (
	"fmt"
	"io"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/formats"
)

// existingRecords says which of recs' ids the bank holds already, in one
// query where the backend offers one.
func (s *Service) existingRecords(recs []review.Record) (map[string]bool, error) {
	ids := make([]string, len(recs))
	for i := range recs {
		ids[i] = recs[i].ID
	}
	if eb, ok := s.b.(interface {
		ExistingRecordIDs(ids []string) (map[string]bool, error)
	}); ok {
		return eb.ExistingRecordIDs(ids)
	}
	have := map[string]bool{}
	for _, id := range ids {
		if _, err := s.b.Record(id); err == nil {
			have[id] = true
		}
	}
	return have, nil
}

// Export writes the bank's items of kind (records, proposals, decisions or
// trajectories) as JSON Lines to w.
func (s *Service) Export(kind string, w io.Writer) error {
	switch kind {
	case KindRecords:
		rs, err := s.b.Records(review.RecordFilter{})
		if err != nil {
			return err
		}
		return formats.WriteJSONL(w, rs)
	case KindProposals:
		ps, err := s.b.Proposals()
		if err != nil {
			return err
		}
		return formats.WriteJSONL(w, ps)
	case KindDecisions:
		ds, err := s.b.Decisions()
		if err != nil {
			return err
		}
		return formats.WriteJSONL(w, ds)
	case KindTrajectories:
		ts, err := s.b.Trajectories()
		if err != nil {
			return err
		}
		return formats.WriteJSONL(w, ts)
	}
	return fmt.Errorf("export: %q is not records, proposals, decisions or trajectories", kind)
}
