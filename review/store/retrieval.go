package store

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/memreview/memreview/review"
)

// LogRetrieval appends r to the retrieval log (At defaults to now). It
// links no record to a trajectory: a retrieval names the task it is for,
// and the run stored under that id later is linked to its records then
// (the service's import, by the session that retrieved), never a run the
// bank already holds — an agent could name any stored run's id.
func (s *Store) LogRetrieval(r review.Retrieval) error { return s.LogRetrievals([]review.Retrieval{r}) }

// LogRetrievals logs several retrievals in one transaction (one fsync), as
// LogRetrieval logs one: the service groups concurrent retrievals this way.
func (s *Store) LogRetrievals(rs []review.Retrieval) error {
	return s.tx(context.Background(), func(t querier) error {
		for _, r := range rs {
			if err := logRetrieval(t, r, s.Now); err != nil {
				return err
			}
		}
		return nil
	})
}

func logRetrieval(t querier, r review.Retrieval, now func() time.Time) error {
	if r.At.IsZero() {
		r.At = now()
	}
	if _, err := t.Exec(`INSERT INTO retrieval_log(at, client, task_id, body) VALUES(?,?,?,?)`,
		ts(r.At), r.Client, r.TaskID, marshal(r)); err != nil {
		return fmt.Errorf("log retrieval: %w", err)
	}
	return nil
}

// Retrievals returns the retrieval log after seq, oldest first, at most
// limit entries (limit <= 0: all).
func (s *Store) Retrievals(since int64, limit int) ([]review.Retrieval, error) {
	if limit <= 0 {
		limit = math.MaxInt64 // all; PostgreSQL refuses SQLite's LIMIT -1
	}
	type row struct {
		seq  int64
		body string
	}
	rows, err := s.rd.Query(`SELECT seq, body FROM retrieval_log WHERE seq > ? ORDER BY seq LIMIT ?`, since, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []review.Retrieval
	for rows.Next() {
		var rw row
		if err := rows.Scan(&rw.seq, &rw.body); err != nil {
			return nil, err
		}
		var r review.Retrieval
		if err := unmarshal(rw.body, &r); err != nil {
			return nil, err
		}
		r.Seq = rw.seq
		out = append(out, r)
	}
	return out, rows.Err()
}

// AttachRun stores a probe run and links it as evidence to a proposal or a
// record in one transaction, returning the run's id: either both are
// saved or neither.
func (s *Store) AttachRun(run review.ProbeRun, kind, id, actor string) (string, error) {
	if kind != "proposal" && kind != "record" {
		return "", fmt.Errorf("attach: kind %q is not proposal or record", kind)
	}
	if run.Actor == "" {
		run.Actor = actor
	}
	var runID string
	err := s.tx(context.Background(), func(t querier) error {
		table := "proposals"
		if kind == "record" {
			table = "records"
		}
		var x int
		if err := t.QueryRow(`SELECT count(*) FROM `+table+` WHERE id = ?`, id).Scan(&x); err != nil {
			return err
		}
		if x == 0 {
			return notFound(kind, id)
		}
		var err error
		if runID, err = s.saveRun(t, run); err != nil {
			return err
		}
		if _, err := t.Exec(`INSERT INTO attachments(run_id, kind, target, actor, at) VALUES(?,?,?,?,?) ON CONFLICT DO NOTHING`,
			runID, kind, id, actor, ts(s.Now())); err != nil {
			return err
		}
		return addChange(t, EvidenceChange, id)
	})
	if err != nil {
		return "", fmt.Errorf("attach to %s %s: %w", kind, id, err)
	}
	return runID, nil
}
