package app

import (
	"fmt"
	"io"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/formats"
)

// Input is one named input to Import ("<stdin>" for standard input).
type Input struct {
	Name string
	R    io.Reader
}

// Import kinds.
const (
	KindRecords      = "records"
	KindProposals    = "proposals"
	KindTrajectories = "trajectories"
	KindDecisions    = "decisions" // export only
)

// Import reads every input as JSON Lines of kind (records, proposals or
// trajectories; OpenAI chat files for trajectories too), validates all of
// it — formats, ids already in the bank or repeated across inputs,
// proposal targets — and only then writes it in one transaction. Any error
// names the file, line and field, and nothing is written. It returns how
// many items were imported.
func (s *Service) Import(kind string, inputs []Input, actor string) (int, error) {
	if actor == "" {
		actor = s.opt.Operator
	}
	var recs []review.Record
	var props []review.Proposal
	var trajs []review.Trajectory
	from := map[string]string{} // id → the input that has it
	for _, in := range inputs {
		var err error
		file := in.Name
		switch kind {
		case KindRecords:
			var rs []review.Record
			var lines []int
			if rs, lines, err = formats.ReadRecordsAt(in.R, file); err == nil {
				// One query for the whole file's ids, not one per record.
				have, herr := s.existingRecords(rs)
				if herr != nil {
					return 0, fmt.Errorf("import: %s: %w", file, herr)
				}
				err = formats.CheckNewRecords(file, rs, lines, func(id string) bool { return have[id] }, from)
				recs = append(recs, rs...)
			}
		case KindProposals:
			var ps []review.Proposal
			var lines []int
			if ps, lines, err = formats.ReadProposals(in.R, file); err == nil {
				err = formats.CheckProposalsInBank(file, ps, lines, s.b)
				for i, p := range ps {
					if err != nil || p.ID == "" {
						continue
					}
					if _, perr := s.b.Proposal(p.ID); perr == nil {
						err = fmt.Errorf("%s:%d: field \"id\": proposal %s is already in the bank", file, lines[i], p.ID)
					} else if f, dup := from[p.ID]; dup {
						err = fmt.Errorf("%s:%d: field \"id\": proposal %s is also in %s", file, lines[i], p.ID, f)
					}
					from[p.ID] = file
				}
				props = append(props, ps...)
			}
		case KindTrajectories:
			var ts []review.Trajectory
			if ts, err = formats.ReadChatTrajectories(in.R, file); err == nil {
				// Proposals cite a trajectory's steps: replacing one would
				// change what their evidence points at.
				for _, tr := range ts {
					if _, terr := s.b.Trajectory(tr.ID); terr == nil {
						err = fmt.Errorf("%s: trajectory %s is already in the bank", file, tr.ID)
						break
					}
					if f, dup := from[tr.ID]; dup {
						err = fmt.Errorf("%s: trajectory %s is also in %s (ids of OpenAI-format runs come from the file name; rename one file)", file, tr.ID, f)
						break
					}
					from[tr.ID] = file
				}
				trajs = append(trajs, ts...)
			}
		default:
			return 0, fmt.Errorf("import: %q is not records, proposals or trajectories", kind)
		}
		if err != nil {
			return 0, err
		}
	}
	var err error
	n := 0
	switch kind {
	case KindRecords:
		err, n = s.b.PutRecords(recs, actor, "import"), len(recs)
	case KindProposals:
		err, n = s.b.AddProposals(props, nil), len(props)
	case KindTrajectories:
		err, n = s.b.PutTrajectories(trajs), len(trajs)
	}
	if err != nil {
		return 0, fmt.Errorf("import %s: %w; nothing was imported", kind, err)
	}
	s.afterBulkWrite(fmt.Sprintf("import of %d %s", n, kind))
	return n, nil
}

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
