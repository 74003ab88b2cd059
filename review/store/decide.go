package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/memreview/memreview/review"
)

// verbStatus is the proposal status each closing verb leaves.
var verbStatus = map[review.Verb]review.ProposalStatus{
	review.Accept: review.Accepted, review.Narrow: review.Narrowed, review.Edit: review.Edited, review.Merge: review.Merged,
	review.Delete: review.Deleted, review.Reject: review.Rejected, review.Defer: review.Deferred,
}

// decision collects what one decision changes inside its transaction.
type decision struct {
	s    *Store
	q    querier
	d    *review.Decision
	live []review.ProbeRun // the proposal's live runs: the checks' baselines
	err  error
}

func (dc *decision) write(r *review.Record, op string) {
	if dc.err != nil {
		return
	}
	before, err := getRecord(dc.q, r.ID)
	if err != nil && !errors.Is(err, review.ErrNotFound) {
		dc.err = err
		return
	}
	ch := review.RecordChange{RecordID: r.ID}
	if before != nil {
		ch.Before, ch.BeforeR = before.Version, before
		before.Suspect = false
	}
	reason := dc.d.Note
	if len(dc.d.Baselines) > 0 && r.Status == review.Active { // not the sources a merge retires
		reason = strings.TrimPrefix(reason+"; "+review.BaselineText(dc.d.Baselines), "; ")
	}
	if dc.err = dc.s.writeRecord(dc.q, r, op, dc.d.Operator, reason, dc.d.ID); dc.err != nil {
		return
	}
	after := *r
	ch.After, ch.AfterR = r.Version, &after
	dc.d.Changes = append(dc.d.Changes, ch)
}

func (dc *decision) retire(id, into string) {
	if dc.err != nil {
		return
	}
	r, err := getRecord(dc.q, id)
	if err != nil {
		dc.err = err
		return
	}
	if r.Status == review.Retired {
		dc.err = fmt.Errorf("record %s is already retired", id)
		return
	}
	r.Status = review.Retired
	op := "retire"
	if into != "" {
		r.Provenance.MergedInto = into
		op = "merge"
	}
	dc.write(r, op)
}

// newRecord assigns an id (the given one when free) and writes version 1.
func (dc *decision) create(r *review.Record, op string) {
	if dc.err != nil {
		return
	}
	if r.ID != "" {
		if _, err := getRecord(dc.q, r.ID); err == nil {
			r.ID = ""
		}
	}
	if r.ID == "" {
		r.ID, dc.err = nextID(dc.q, "mem_", "records")
		if dc.err != nil {
			return
		}
	}
	r.Version, r.Status, r.Created = 0, review.Active, dc.s.Now()
	dc.write(r, op)
}

// merge folds base and the sources into one new record; sources are
// retired and point at it.
func (dc *decision) merge(base *review.Record, sources []string) {
	if len(sources) == 0 {
		dc.err = errors.New("merge needs at least one record to fold in")
		return
	}
	m := *base
	m.ID = ""
	m.Provenance.MergedFrom = slices.Clone(sources)
	m.Provenance.MergedInto = ""
	dc.create(&m, "merge")
	if dc.err != nil {
		return
	}
	dc.d.Record = &m
	for _, id := range sources {
		dc.retire(id, m.ID)
	}
}

func (dc *decision) save(verb review.Verb) error {
	if dc.err != nil {
		return dc.err
	}
	dc.d.Verb = verb
	dc.d.At = dc.s.Now()
	if r := dc.d.Record; r != nil && r.Status == review.Active {
		dc.d.NoBaseline = nil
		for i, c := range r.Checks {
			if !c.HasBaseline() {
				dc.d.NoBaseline = append(dc.d.NoBaseline, i+1)
			}
		}
	}
	for _, t := range []struct{ f, s string }{{"note", dc.d.Note}, {"operator", dc.d.Operator}} {
		if m := review.CheckText(t.s); m != "" {
			return fmt.Errorf("decision: field %q: %s", t.f, m)
		}
	}
	if n := review.EncodedSize(dc.d); n > review.MaxLineBytes {
		return fmt.Errorf("decision: it would be %d bytes as JSON, over the %d a decision may hold (it carries every record it changes: merge fewer records at once)", n, review.MaxLineBytes)
	}
	_, err := dc.q.Exec(`INSERT INTO decisions(id, proposal, verb, body) VALUES(?,?,?,?)`,
		dc.d.ID, dc.d.Proposal, string(verb), marshal(dc.d))
	return err
}

// decideTx runs one decision in one transaction. fn checks what it must,
// fills the decision it is given (numbered, with base's fields) and returns
// its verb; decideTx saves the audit entry and returns it. Any error rolls
// everything back.
func (s *Store) decideTx(ctx context.Context, base review.Decision, fn func(q querier, dc *decision) (review.Verb, error)) (*review.Decision, error) {
	var out *review.Decision
	err := s.tx(ctx, func(q querier) error {
		id, err := nextID(q, "dec_", "decisions")
		if err != nil {
			return err
		}
		d := base
		d.ID = id
		dc := &decision{s: s, q: q, d: &d}
		verb, err := fn(q, dc)
		if err != nil {
			return err
		}
		if err := dc.save(verb); err != nil {
			return err
		}
		out = dc.d
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// setProposalStatus moves a proposal in the queue and tells the change feed.
func setProposalStatus(q querier, id string, st review.ProposalStatus) error {
	if _, err := q.Exec(`UPDATE proposals SET status = ? WHERE id = ?`, string(st), id); err != nil {
		return err
	}
	return addChange(q, "proposal", id)
}

// Decide applies an operator's decision to a proposal in one transaction:
// the record versions it writes, the proposal's new status and the audit
// entry commit together or not at all. A target that changed since the
// proposal was made, or a proposal already decided, returns *ConflictError
// and changes nothing.
func (s *Store) Decide(ctx context.Context, req review.DecideRequest) (*review.Decision, error) {
	if _, ok := verbStatus[req.Verb]; !ok {
		return nil, fmt.Errorf("decide: %q is not a verb (accept, narrow, edit, merge, delete, reject, defer)", req.Verb)
	}
	var p *review.Proposal
	return s.decideTx(ctx, review.Decision{Operator: req.Operator, Note: req.Note, Evidence: req.Evidence},
		func(t querier, dc *decision) (review.Verb, error) {
			var err error
			if p, err = getProposal(t, req.Proposal); err != nil {
				return "", err
			}
			if !p.Status.Open() {
				return "", &review.ConflictError{Proposal: p.ID, Status: p.Status}
			}
			if req.Verb != review.Reject && req.Verb != review.Defer {
				if ce, err := conflicts(t, p); err != nil {
					return "", err
				} else if ce != nil {
					return "", ce
				}
			}
			if req.Verb == review.Merge {
				if err := checkRead(t, p.ID, req.With, req.Seen); err != nil {
					return "", err
				}
			}
			dc.d.Proposal, dc.d.PrevStatus = p.ID, p.Status
			if req.Verb != review.Reject && req.Verb != review.Defer {
				if dc.live, err = liveRunsOf(t, p.ID); err != nil {
					return "", err
				}
			}
			if err := dc.apply(p, req); err != nil {
				return "", err
			}
			return req.Verb, setProposalStatus(t, p.ID, verbStatus[req.Verb])
		})
}

// proposalProvenance fills what a record's provenance leaves empty from
// the proposal it comes from: the trajectory, the span of the cited steps
// and the probe runs, so that a proposal imported with a trajectory (and a
// record without provenance) still says where the accepted record came from.
func proposalProvenance(pv review.Provenance, p *review.Proposal) review.Provenance {
	if pv.Trajectory != "" || p.Trajectory == "" {
		return pv
	}
	pv.Trajectory = p.Trajectory
	if pv.Steps == nil && len(p.Evidence.Steps) > 0 {
		span := p.Evidence.Steps[0]
		for _, s := range p.Evidence.Steps[1:] {
			span.From, span.To = min(span.From, s.From), max(span.To, s.To)
		}
		pv.Steps = &span
	}
	if len(pv.ProbeRuns) == 0 {
		pv.ProbeRuns = slices.Clone(p.Evidence.ProbeRuns)
	}
	return pv
}

func (dc *decision) apply(p *review.Proposal, req review.DecideRequest) error {
	final := p.Record
	switch {
	case req.Record != nil:
		final = req.Record // the operator's: what they removed stays out
	case p.Op == review.OpMerge && p.Record != nil:
		// As proposed: the proposal's record with every target's content
		// it does not say folded in, so that accepting a curator's rewrite
		// loses no sentence, step or check of the records it retires.
		var targets []*review.Record
		for _, id := range p.TargetIDs() {
			r, err := getRecord(dc.q, id)
			if err != nil && !errors.Is(err, review.ErrNotFound) {
				return err
			}
			targets = append(targets, r)
		}
		final = review.AcceptedRecord(p, targets)
	}
	var rec *review.Record
	if final != nil {
		c := *final
		c.Provenance = proposalProvenance(c.Provenance, p)
		// The latest live run of each check is its baseline, so that the
		// record is not suspect at its first verify (review/live.go).
		if req.Verb != review.Delete && p.Op != review.OpSkip && p.Op != review.OpDelete {
			dc.d.Baselines = review.SetBaselines(&c, dc.live)
		}
		rec = &c
	}
	needRecord := func() error {
		if rec == nil {
			return fmt.Errorf("decide %s: a %s proposal has no record to %s", p.ID, p.Op, req.Verb)
		}
		return nil
	}
	switch req.Verb {
	case review.Reject, review.Defer:
		return nil
	case review.Delete:
		if len(p.Targets) == 0 {
			return fmt.Errorf("decide %s: the proposal has no target record to delete", p.ID)
		}
		for _, t := range p.Targets {
			dc.retire(t.ID, "")
		}
		return dc.err
	case review.Merge:
		if err := needRecord(); err != nil {
			return err
		}
		var sources []string
		for _, id := range append(p.TargetIDs(), req.With...) {
			if !slices.Contains(sources, id) {
				sources = append(sources, id)
			}
		}
		dc.merge(rec, sources)
		return dc.err
	}
	// accept, narrow, edit: apply the proposal's op with the final record.
	switch p.Op {
	case review.OpSkip:
		if req.Verb != review.Accept {
			return fmt.Errorf("decide %s: a skip proposal can only be accepted or rejected", p.ID)
		}
		return nil
	case review.OpDelete:
		if req.Verb != review.Accept {
			return fmt.Errorf("decide %s: a delete proposal can only be accepted or rejected", p.ID)
		}
		return dc.apply(p, review.DecideRequest{Verb: review.Delete})
	case review.OpCreate:
		if err := needRecord(); err != nil {
			return err
		}
		dc.create(rec, string(p.Op))
		dc.d.Record = rec
	case review.OpUpdate, review.OpNarrow:
		if err := needRecord(); err != nil {
			return err
		}
		cur, err := getRecord(dc.q, p.Targets[0].ID)
		if err != nil {
			return err
		}
		if cur.Status == review.Retired { // as merge refuses a retired source: never revived by an update
			return fmt.Errorf("decide %s: record %s is retired, so a %s cannot change it (reject the proposal, or propose a create)", p.ID, cur.ID, p.Op)
		}
		rec.ID, rec.Created, rec.Status = cur.ID, cur.Created, review.Active
		op := string(p.Op)
		if req.Verb != review.Accept {
			op = string(req.Verb)
		}
		dc.write(rec, op)
		dc.d.Record = rec
	case review.OpMerge:
		if err := needRecord(); err != nil {
			return err
		}
		dc.merge(rec, p.TargetIDs())
	}
	return dc.err
}

// DecideRecords applies an operator's change to records outside any
// proposal (the bank browser's verbs), audited like a proposal decision.
func (s *Store) DecideRecords(ctx context.Context, req review.RecordRequest) (*review.Decision, error) {
	return s.decideTx(ctx, review.Decision{Operator: req.Operator, Note: req.Note, Baselines: req.Baselines}, func(t querier, dc *decision) (review.Verb, error) {
		seen := maps.Clone(req.Seen)
		if req.Record != nil && req.Record.Version != 0 && (req.Verb != review.Merge || slices.Contains(req.IDs, req.Record.ID)) {
			if seen == nil {
				seen = map[string]int{}
			}
			seen[req.Record.ID] = req.Record.Version
		}
		if err := checkRead(t, "", append(slices.Clone(req.IDs), recordID(req.Record)), seen); err != nil {
			return "", err
		}
		switch req.Verb {
		case review.Edit, review.Narrow:
			if req.Record == nil || req.Record.ID == "" {
				return "", fmt.Errorf("%s: which record? none given", req.Verb)
			}
			cur, err := getRecord(t, req.Record.ID)
			if err != nil {
				return "", err
			}
			rec := *req.Record
			rec.Created, rec.Status = cur.Created, cur.Status
			dc.write(&rec, string(req.Verb))
			dc.d.Record = &rec
		case review.Delete:
			if len(req.IDs) == 0 {
				return "", errors.New("delete: no record given")
			}
			for _, id := range req.IDs {
				dc.retire(id, "")
			}
		case review.Merge:
			if req.Record == nil {
				return "", errors.New("merge: the merged record is missing")
			}
			dc.merge(req.Record, req.IDs)
		default:
			return "", fmt.Errorf("%q is not a record verb (edit, narrow, delete, merge)", req.Verb)
		}
		return req.Verb, dc.err
	})
}

// checkRead returns a *ConflictError when one of ids is no longer at the
// version the operator read (seen[id]; 0 or absent is not checked).
func checkRead(q querier, proposal string, ids []string, seen map[string]int) error {
	for _, id := range ids {
		v := seen[id]
		if id == "" || v == 0 {
			continue
		}
		ce, err := stale(q, proposal, id, v)
		if err != nil {
			return err
		}
		if ce != nil {
			ce.Read = true
			return ce
		}
	}
	return nil
}

func recordID(r *review.Record) string {
	if r == nil {
		return ""
	}
	return r.ID
}

// Undo reverses a decision (the latest one not yet undone when decisionID
// is empty): every record it changed gets a new version equal to the one
// before, records it created are retired, and its proposal reopens. A record
// changed again since the decision makes the undo a *ConflictError.
func (s *Store) Undo(ctx context.Context, decisionID, operator, note string) (*review.Decision, error) {
	return s.decideTx(ctx, review.Decision{Operator: operator, Note: note}, func(t querier, dc *decision) (review.Verb, error) {
		orig, err := undoable(t, decisionID)
		if err != nil {
			return "", err
		}
		dc.d.Proposal, dc.d.Undoes = orig.Proposal, orig.ID
		for i := len(orig.Changes) - 1; i >= 0; i-- {
			ch := orig.Changes[i]
			if ce, err := stale(t, orig.Proposal, ch.RecordID, ch.After); err != nil {
				return "", err
			} else if ce != nil {
				ce.Undo = orig.ID
				return "", ce
			}
			var back review.Record
			if ch.BeforeR != nil {
				back = *ch.BeforeR
			} else { // the decision created it: retire it
				cur, err := getRecord(t, ch.RecordID)
				if err != nil {
					return "", err
				}
				back = *cur
				back.Status = review.Retired
			}
			back.ID = ch.RecordID
			dc.write(&back, "undo")
		}
		if _, err := t.Exec(`UPDATE decisions SET undone_by = ? WHERE id = ?`, dc.d.ID, orig.ID); err != nil {
			return "", err
		}
		if orig.Proposal != "" && orig.PrevStatus != "" {
			if err := setProposalStatus(t, orig.Proposal, orig.PrevStatus); err != nil {
				return "", err
			}
		}
		return review.Undo, nil
	})
}

// undoable loads the decision to undo (the latest standing one when id is
// empty) and refuses one that cannot be undone.
func undoable(t querier, id string) (*review.Decision, error) {
	var body, undone string
	var err error
	if id == "" {
		err = t.QueryRow(`SELECT body, undone_by FROM decisions WHERE undone_by = '' AND verb <> 'undo' ORDER BY seq DESC LIMIT 1`).Scan(&body, &undone)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, errors.New("undo: there is no decision to undo")
		}
	} else {
		err = t.QueryRow(`SELECT body, undone_by FROM decisions WHERE id = ?`, id).Scan(&body, &undone)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, notFound("decision", id)
		}
	}
	if err != nil {
		return nil, err
	}
	if undone != "" {
		return nil, fmt.Errorf("undo: decision %s was already undone by %s", id, undone)
	}
	var orig review.Decision
	if err := unmarshal(body, &orig); err != nil {
		return nil, err
	}
	if orig.Verb == review.Undo {
		return nil, fmt.Errorf("undo: %s is itself an undo; undo is not undone", orig.ID)
	}
	if orig.Proposal != "" {
		// Reopening the proposal is right only while this is its latest
		// standing decision: undoing an older one (a defer, say) under a
		// later accept would reopen a proposal already applied.
		var later string
		err := t.QueryRow(`SELECT id FROM decisions WHERE proposal = ? AND verb <> 'undo' AND undone_by = ''
			AND seq > (SELECT seq FROM decisions WHERE id = ?) ORDER BY seq DESC LIMIT 1`, orig.Proposal, orig.ID).Scan(&later)
		if err == nil {
			return nil, fmt.Errorf("undo: proposal %s was decided again by %s after %s; undo %s first", orig.Proposal, later, orig.ID, later)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
	}
	return &orig, nil
}
