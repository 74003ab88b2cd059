package store

import (
	"database/sql"
	"math"
	"slices"
	"strings"

	"github.com/memreview/memreview/review"
)

// byIDChunk is how many ids one IN (...) query names at most.
const byIDChunk = 512

// inChunks runs read on ids cut into chunks of byIDChunk, each as the
// placeholder list "?, ?, …" and its arguments, padded with the chunk's
// last id to the next power of two (at least 8): a query then has a few
// texts rather than one for every count of ids, so its prepared
// statements stay in the read cache (stmtcache.go) instead of being
// prepared anew on most calls. A repeated id matches nothing more.
func inChunks(ids []string, read func(placeholders string, args []any) error) error {
	for lo := 0; lo < len(ids); lo += byIDChunk {
		part := ids[lo:min(lo+byIDChunk, len(ids))]
		n := 8
		for n < len(part) {
			n *= 2
		}
		args := make([]any, n)
		for i := range args {
			args[i] = part[min(i, len(part)-1)]
		}
		if err := read("?"+strings.Repeat(", ?", n-1), args); err != nil {
			return err
		}
	}
	return nil
}

// ProposalsByID returns each proposal in ids that the bank holds, in a few
// queries (one per 512 ids) rather than one per id, as RecordsByID does
// for records; ids it does not hold are left out. The index reads the
// items changed after its sequence with it (index.Store's bulk reads).
func (s *Store) ProposalsByID(ids []string) (map[string]*review.Proposal, error) {
	out := make(map[string]*review.Proposal, len(ids))
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
func (s *Store) TrajectoriesByID(ids []string) (map[string]*review.Trajectory, error) {
	out := make(map[string]*review.Trajectory, len(ids))
	err := inChunks(ids, func(in string, args []any) error {
		ts, err := queryRows(s.rd, `SELECT body FROM trajectories WHERE id IN (`+in+`)`, args, scanBody[review.Trajectory])
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

// NewestChanges is ChangesSince for the newest limit objects only: the
// latest change of each of the limit objects changed last after seq,
// oldest first, read newest first along the sequence (a first page reads
// about limit rows however long the feed), and how many objects changed
// after seq: the changes after seq less the repeats among those read, so
// exact unless an object older than those changed twice. The index reads
// the tail of a long feed with it (a first build at a million records)
// without holding every change in memory.
func (s *Store) NewestChanges(seq int64, limit int) ([]review.Change, int, error) {
	var rows int
	if err := s.rd.QueryRow(`SELECT count(*) FROM changes WHERE seq > ?`, seq).Scan(&rows); err != nil {
		return nil, 0, err
	}
	var out []review.Change
	seen := map[[2]string]bool{}
	repeats := 0
	hi := int64(math.MaxInt64)
	for len(out) < limit {
		page, err := queryRows(s.rd, `SELECT seq, kind, id FROM changes WHERE seq > ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
			[]any{seq, hi, max(limit-len(out), 1000)}, func(rows *sql.Rows) (review.Change, error) {
				var c review.Change
				err := rows.Scan(&c.Seq, &c.Kind, &c.ID)
				return c, err
			})
		if err != nil {
			return nil, 0, err
		}
		for _, c := range page {
			k := [2]string{c.Kind, c.ID}
			if seen[k] {
				repeats++
				continue
			}
			if len(out) < limit {
				seen[k] = true
				out = append(out, c)
			}
		}
		if len(page) == 0 {
			break
		}
		hi = page[len(page)-1].Seq
	}
	slices.Reverse(out)
	return out, rows - repeats, nil
}
