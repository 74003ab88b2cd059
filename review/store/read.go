package store

import (
	"database/sql"
	"errors"
	"sort"

	"github.com/memreview/memreview/review"
)

const suspectSQL = `EXISTS(SELECT 1 FROM check_results c WHERE c.record_id = records.id AND c.verdict NOT IN ('same', 'env-changed', 'no-baseline'))`

// Record returns the current version of a record.
func (s *Store) Record(id string) (*review.Record, error) { return getRecord(s.rd, id) }

func getRecord(q querier, id string) (*review.Record, error) {
	var body string
	var suspect bool
	err := q.QueryRow(`SELECT body, `+suspectSQL+` FROM records WHERE id = ?`, id).Scan(&body, &suspect)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("record", id)
	}
	if err != nil {
		return nil, err
	}
	var r review.Record
	if err := unmarshal(body, &r); err != nil {
		return nil, err
	}
	r.Suspect = suspect
	return &r, nil
}

// Records returns the current version of every record the filter selects, by id.
func (s *Store) Records(f review.RecordFilter) ([]review.Record, error) {
	q := `SELECT body, ` + suspectSQL + ` FROM records WHERE 1=1`
	var args []any
	if f.Status != "" {
		q += ` AND status = ?`
		args = append(args, string(f.Status))
	}
	if f.Env != "" {
		q += ` AND env = ?`
		args = append(args, f.Env)
	}
	return queryRows(s.rd, q+` ORDER BY id`, args, scanRecord)
}

// scanRecord reads a (body, suspect) row into a Record; suspect is
// derived by the query (suspectSQL), not stored in the body.
func scanRecord(rows *sql.Rows) (review.Record, error) {
	var body string
	var r review.Record
	if err := rows.Scan(&body, &r.Suspect); err != nil {
		return r, err
	}
	suspect := r.Suspect
	err := unmarshal(body, &r)
	r.Suspect = suspect
	return r, err
}

// queryRows runs a query and turns each row into a T with scan.
func queryRows[T any](q querier, query string, args []any, scan func(*sql.Rows) (T, error)) ([]T, error) {
	rows, err := q.Query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// scanBody decodes a row whose only column is a JSON body.
func scanBody[T any](rows *sql.Rows) (T, error) {
	var body string
	var v T
	if err := rows.Scan(&body); err != nil {
		return v, err
	}
	return v, unmarshal(body, &v)
}

// History returns every version of a record, oldest first.
func (s *Store) History(id string) ([]review.Version, error) {
	rows, err := s.rd.Query(`SELECT body, op, actor, reason, decision, at FROM record_versions WHERE id = ? ORDER BY version`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []review.Version
	for rows.Next() {
		var v review.Version
		var body, at string
		if err := rows.Scan(&body, &v.Op, &v.Actor, &v.Reason, &v.Decision, &at); err != nil {
			return nil, err
		}
		if err := unmarshal(body, &v.Record); err != nil {
			return nil, err
		}
		v.At = parseTS(at)
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, notFound("record", id)
	}
	return out, nil
}

// RecordVersion returns one version of a record.
func (s *Store) RecordVersion(id string, v int) (*review.Record, error) {
	var body string
	err := s.rd.QueryRow(`SELECT body FROM record_versions WHERE id = ? AND version = ?`, id, v).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("record version", id)
	}
	if err != nil {
		return nil, err
	}
	var r review.Record
	return &r, unmarshal(body, &r)
}

// Proposal returns one proposal.
func (s *Store) Proposal(id string) (*review.Proposal, error) { return getProposal(s.rd, id) }

func getProposal(q querier, id string) (*review.Proposal, error) {
	var body, status string
	err := q.QueryRow(`SELECT body, status FROM proposals WHERE id = ?`, id).Scan(&body, &status)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("proposal", id)
	}
	if err != nil {
		return nil, err
	}
	var p review.Proposal
	if err := unmarshal(body, &p); err != nil {
		return nil, err
	}
	p.Status = review.ProposalStatus(status)
	return &p, nil
}

func (s *Store) proposals(where string, args ...any) ([]review.Proposal, error) {
	return queryRows(s.rd, `SELECT body, status FROM proposals `+where+` ORDER BY created, id`, args, func(rows *sql.Rows) (review.Proposal, error) {
		var body, status string
		var p review.Proposal
		if err := rows.Scan(&body, &status); err != nil {
			return p, err
		}
		err := unmarshal(body, &p)
		p.Status = review.ProposalStatus(status)
		return p, err
	})
}

// Proposals returns every proposal, oldest first.
func (s *Store) Proposals() ([]review.Proposal, error) { return s.proposals("") }

// Queue returns the open proposals: pending ones first, then deferred ones,
// each oldest first.
func (s *Store) Queue() ([]review.Proposal, error) {
	ps, err := s.proposals(`WHERE status IN ('pending', 'deferred')`)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Status == review.Pending && ps[j].Status != review.Pending })
	return ps, nil
}

// Conflicts says whether any target of p changed since p was made.
func (s *Store) Conflicts(p *review.Proposal) (*review.ConflictError, error) {
	return conflicts(s.rd, p)
}

func conflicts(q querier, p *review.Proposal) (*review.ConflictError, error) {
	for _, t := range p.Targets {
		if ce, err := stale(q, p.ID, t.ID, t.Version); ce != nil || err != nil {
			return ce, err
		}
	}
	return nil, nil
}

// stale returns a *ConflictError when record id is no longer at version
// seen, naming who changed it and how.
func stale(q querier, proposal, id string, seen int) (*review.ConflictError, error) {
	var cur int
	err := q.QueryRow(`SELECT version FROM records WHERE id = ?`, id).Scan(&cur)
	if errors.Is(err, sql.ErrNoRows) {
		return &review.ConflictError{Proposal: proposal, Record: id, Seen: seen, Op: "missing"}, nil
	}
	if err != nil {
		return nil, err
	}
	if cur == seen {
		return nil, nil
	}
	ce := &review.ConflictError{Proposal: proposal, Record: id, Seen: seen, Now: cur}
	var at string
	if err := q.QueryRow(`SELECT op, actor, reason, decision, at FROM record_versions WHERE id = ? AND version = ?`, id, cur).
		Scan(&ce.Op, &ce.By, &ce.Reason, &ce.Decision, &at); err != nil {
		return nil, err
	}
	ce.At = parseTS(at)
	return ce, nil
}

// Decision returns one decision.
func (s *Store) Decision(id string) (*review.Decision, error) {
	ds, err := s.decisions(`WHERE id = ?`, id)
	if err != nil {
		return nil, err
	}
	if len(ds) == 0 {
		return nil, notFound("decision", id)
	}
	return &ds[0], nil
}

// ProposalDecisions returns the decisions on one proposal (undos
// included), in the order made; none for a proposal never decided.
func (s *Store) ProposalDecisions(proposalID string) ([]review.Decision, error) {
	return s.decisions(`WHERE proposal = ?`, proposalID)
}

// Decisions returns every decision in the order made.
func (s *Store) Decisions() ([]review.Decision, error) { return s.decisions("") }

func (s *Store) decisions(where string, args ...any) ([]review.Decision, error) {
	return queryRows(s.rd, `SELECT body, undone_by FROM decisions `+where+` ORDER BY seq`, args, func(rows *sql.Rows) (review.Decision, error) {
		var body, undone string
		var d review.Decision
		if err := rows.Scan(&body, &undone); err != nil {
			return d, err
		}
		err := unmarshal(body, &d)
		d.UndoneBy = undone
		return d, err
	})
}

// Trajectory returns one trajectory.
func (s *Store) Trajectory(id string) (*review.Trajectory, error) {
	var body string
	err := s.rd.QueryRow(`SELECT body FROM trajectories WHERE id = ?`, id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("trajectory", id)
	}
	if err != nil {
		return nil, err
	}
	var t review.Trajectory
	return &t, unmarshal(body, &t)
}

// Trajectories returns every trajectory, by id.
func (s *Store) Trajectories() ([]review.Trajectory, error) {
	return queryRows(s.rd, `SELECT body FROM trajectories ORDER BY id`, nil, scanBody[review.Trajectory])
}

// RetrievedBy lists the trajectories whose task agent retrieved the record.
func (s *Store) RetrievedBy(recordID string) ([]review.TrajectoryUse, error) {
	ts, err := queryRows(s.rd, `SELECT t.body FROM retrievals r JOIN trajectories t ON t.id = r.trajectory_id
		WHERE r.record_id = ? ORDER BY t.id`, []any{recordID}, scanBody[review.Trajectory])
	out := make([]review.TrajectoryUse, len(ts))
	for i, t := range ts {
		out[i] = review.TrajectoryUse{Trajectory: t.ID, Task: t.Task, Outcome: t.Outcome}
	}
	return out, err
}
