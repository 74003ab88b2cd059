package app

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memreview/memreview/review"
)

// The bank as it stood, or as it would be: the record sets eval's bank@…
// and bank+pending conditions retrieve from. Each holds every record of
// that moment, retired ones too (their status says so), in the version it
// had then, without the suspect flag of later verifies.

// RecordsAsOf is the bank as it stood at t: each record in its last
// version written at or before t; records first written after t are left
// out. Only records changed since t read their history.
func (s *Service) RecordsAsOf(t time.Time) ([]review.Record, error) {
	return s.recordsThrough(t, func(v review.Version) bool { return !v.At.After(t) })
}

// recordsThrough is the bank with each record in its last version that
// counts (in); a record whose current version was written before t counts
// as it is without reading its history.
func (s *Service) recordsThrough(t time.Time, in func(review.Version) bool) ([]review.Record, error) {
	recs, err := s.b.Records(review.RecordFilter{})
	if err != nil {
		return nil, err
	}
	out := make([]review.Record, 0, len(recs))
	for _, r := range recs {
		if r.Updated.Before(t) {
			r.Suspect = false
			out = append(out, r)
			continue
		}
		h, err := s.b.History(r.ID)
		if err != nil {
			return nil, fmt.Errorf("the history of %s: %w", r.ID, err)
		}
		for i := len(h) - 1; i >= 0; i-- {
			if in(h[i]) {
				v := h[i].Record
				v.Suspect = false
				out = append(out, v)
				break
			}
		}
	}
	sortRecords(out)
	return out, nil
}

// decisionSeq is a decision's place in the bank's order: its number, as
// the store numbers decisions from one counter that only goes up (dec_0007
// came after dec_0006). Timestamps cannot order them: two decisions can
// share a millisecond. An id that is not a number orders first.
func decisionSeq(id string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(id, "dec_"))
	if err != nil {
		return 0
	}
	return n
}

// RecordsAtDecision is the bank just after decision id (after) or just
// before it: the bank at the decision's time, with, for the state before,
// every record it changed put back to the version it found (and those it
// created left out).
func (s *Service) RecordsAtDecision(id string, after bool) ([]review.Record, error) {
	d, err := s.b.Decision(id)
	if errors.Is(err, review.ErrNotFound) {
		return nil, fmt.Errorf("there is no decision %q in the bank (see 'memreview history RECORD')", id)
	}
	if err != nil {
		return nil, err
	}
	// A version counts when the decision that wrote it is this one or an
	// earlier one; a version no decision wrote (an import) when it was
	// written by the decision's time.
	seq := decisionSeq(d.ID)
	recs, err := s.recordsThrough(d.At, func(v review.Version) bool {
		if v.Decision != "" {
			return decisionSeq(v.Decision) <= seq
		}
		return !v.At.After(d.At)
	})
	if err != nil || after {
		return recs, err
	}
	undo := map[string]int{}
	for _, c := range d.Changes {
		undo[c.RecordID] = c.Before
	}
	out := recs[:0:0]
	for _, r := range recs {
		before, changed := undo[r.ID]
		switch {
		case !changed:
			out = append(out, r)
		case before > 0:
			v, err := s.b.RecordVersion(r.ID, before)
			if err != nil {
				return nil, fmt.Errorf("%s v%d, before decision %s: %w", r.ID, before, id, err)
			}
			v.Suspect = false
			out = append(out, *v)
		}
	}
	return out, nil
}

// DecisionRecords is the records decision id changed.
func (s *Service) DecisionRecords(id string) ([]string, error) {
	d, err := s.b.Decision(id)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, c := range d.Changes {
		ids = append(ids, c.RecordID)
	}
	return ids, nil
}

// RecordsWithPending is the bank as it would be were every open proposal
// accepted as made, in queue order: a create adds its record (under the
// proposal's id, as it has none yet), an update or narrow replaces its
// target, a merge retires its targets and adds the merged record (under
// the proposal's id), a delete retires its targets, a skip does nothing.
// A proposal whose target changed since it was made, or that an earlier
// open proposal already changed, is left out, as deciding it would be a
// conflict.
func (s *Service) RecordsWithPending() ([]review.Record, error) {
	recs, err := s.b.Records(review.RecordFilter{})
	if err != nil {
		return nil, err
	}
	byID := map[string]*review.Record{}
	for i := range recs {
		recs[i].Suspect = false
		byID[recs[i].ID] = &recs[i]
	}
	queue, err := s.b.Queue()
	if err != nil {
		return nil, err
	}
	touched := map[string]bool{}
	var added []review.Record
	for _, p := range queue {
		ok := true
		for _, t := range p.Targets {
			r := byID[t.ID]
			ok = ok && r != nil && r.Version == t.Version && r.Status == review.Active && !touched[t.ID]
		}
		if !ok || p.Op == review.OpSkip {
			continue
		}
		for _, t := range p.Targets {
			touched[t.ID] = true
		}
		switch p.Op {
		case review.OpCreate, review.OpMerge:
			if p.Record == nil {
				continue
			}
			r := *p.Record
			r.ID, r.Status, r.Version = p.ID, review.Active, 0
			added = append(added, r)
			for _, t := range p.Targets {
				byID[t.ID].Status = review.Retired
			}
		case review.OpUpdate, review.OpNarrow:
			if p.Record == nil || len(p.Targets) != 1 {
				continue
			}
			cur := byID[p.Targets[0].ID]
			r := *p.Record
			r.ID, r.Status, r.Version = cur.ID, review.Active, cur.Version+1
			*cur = r
		case review.OpDelete:
			for _, t := range p.Targets {
				byID[t.ID].Status = review.Retired
			}
		}
	}
	out := append(recs, added...)
	sortRecords(out)
	return out, nil
}

func sortRecords(rs []review.Record) {
	sort.Slice(rs, func(i, j int) bool { return rs[i].ID < rs[j].ID })
}
