package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/printable"
)

func parseTS(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// writeRecord stores r as the next version of its record (version 1 for a
// new one), with who wrote it and why, and appends to the change feed.
func (s *Store) writeRecord(q querier, r *review.Record, op, actor, reason, decision string) error {
	var cur int
	err := q.QueryRow(`SELECT version FROM records WHERE id = ?`, r.ID).Scan(&cur)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	now := s.Now()
	body, err := review.NewVersion(r, cur, now)
	if err != nil {
		return err
	}
	if _, err := q.Exec(`INSERT INTO record_versions(id, version, op, actor, reason, decision, at, body) VALUES(?,?,?,?,?,?,?,?)`,
		r.ID, r.Version, op, actor, reason, decision, ts(now), body); err != nil {
		return fmt.Errorf("write record %s v%d: %w", r.ID, r.Version, err)
	}
	// Verify results belong to the version they checked: a new version is
	// not verified yet (and no longer suspect) until the next verify.
	if _, err := q.Exec(`DELETE FROM check_results WHERE record_id = ?`, r.ID); err != nil {
		return err
	}
	if _, err := q.Exec(`INSERT INTO records(id, version, status, env, body) VALUES(?,?,?,?,?)
		ON CONFLICT(id) DO UPDATE SET version = excluded.version, status = excluded.status, env = excluded.env, body = excluded.body`,
		r.ID, r.Version, string(r.Status), r.Scope.Env, body); err != nil {
		return fmt.Errorf("write record %s: %w", r.ID, err)
	}
	return addChange(q, "record", r.ID)
}

// PutRecords stores new records at version 1 in one transaction (import).
// Every id must be new. It writes each table's rows putChunk at a time in
// one multi-row INSERT, and checks the ids and clears stale check results
// in one query each: a statement per row per table was most of an
// import's time.
func (s *Store) PutRecords(recs []review.Record, actor, reason string) error {
	ids := make([]string, len(recs))
	for i := range recs {
		if recs[i].ID == "" {
			return fmt.Errorf("record #%d: field \"id\" is empty", i+1)
		}
		ids[i] = recs[i].ID
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	return s.tx(context.Background(), func(t querier) error {
		if err := checkNewIDs(t, ids, string(list)); err != nil {
			return err
		}
		type row struct {
			r    review.Record
			at   string
			body string
		}
		rows := make([]row, len(recs))
		for i := range recs {
			rows[i].r = recs[i]
			now := s.Now()
			body, err := review.NewVersion(&rows[i].r, 0, now)
			if err != nil {
				return err
			}
			rows[i].at, rows[i].body = ts(now), body
		}
		// Verify results belong to the version they checked (writeRecord):
		// an id imported again after its record was removed starts clean.
		if _, err := t.Exec(`DELETE FROM check_results WHERE record_id IN (SELECT value FROM json_each(?))`, string(list)); err != nil {
			return err
		}
		for lo := 0; lo < len(rows); lo += putChunk {
			chunk := rows[lo:min(lo+putChunk, len(rows))]
			vargs := make([]any, 0, 8*len(chunk))
			rargs := make([]any, 0, 5*len(chunk))
			cargs := make([]any, 0, len(chunk))
			for _, w := range chunk {
				r := &w.r
				vargs = append(vargs, r.ID, r.Version, "import", actor, reason, "", w.at, w.body)
				rargs = append(rargs, r.ID, r.Version, string(r.Status), r.Scope.Env, w.body)
				cargs = append(cargs, r.ID)
			}
			if _, err := t.Exec(`INSERT INTO record_versions(id, version, op, actor, reason, decision, at, body) VALUES`+
				valueRows(len(chunk), 8), vargs...); err != nil {
				return fmt.Errorf("write records %s…: %w", chunk[0].r.ID, err)
			}
			if _, err := t.Exec(`INSERT INTO records(id, version, status, env, body) VALUES`+valueRows(len(chunk), 5), rargs...); err != nil {
				return fmt.Errorf("write records %s…: %w", chunk[0].r.ID, err)
			}
			// One change per record, in the file's order (a multi-row
			// INSERT assigns its rows' sequence numbers in order).
			if _, err := t.Exec(`INSERT INTO changes(kind, id) VALUES`+valueRows(len(chunk), 1, "'record'"), cargs...); err != nil {
				return err
			}
		}
		return nil
	})
}

// putChunk is how many rows one multi-row INSERT of PutRecords writes (8
// parameters a row at most, far under SQLite's limit of 32,766).
const putChunk = 200

// checkNewIDs fails naming the first of ids (list is them as a JSON
// array) that is already a record, or that appears twice.
func checkNewIDs(q querier, ids []string, list string) error {
	exists, err := existingIDs(q, list)
	if err != nil {
		return err
	}
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if exists[id] || seen[id] {
			return fmt.Errorf("record %s already exists in the bank", id)
		}
		seen[id] = true
	}
	return nil
}

// valueRows is the VALUES list of a multi-row INSERT of n rows of cols
// parameters each, after the constant columns lead (SQL literals).
func valueRows(n, cols int, lead ...string) string {
	one := "(" + strings.Join(append(lead, strings.Repeat("?,", cols-1)+"?"), ",") + ")"
	return strings.Repeat(one+",", n-1) + one
}

// ExistingRecordIDs reports which of ids are records in the bank, in one
// query however many ids there are (import checks a whole file with it
// instead of reading each record).
func (s *Store) ExistingRecordIDs(ids []string) (map[string]bool, error) {
	if len(ids) == 0 {
		return map[string]bool{}, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	return existingIDs(s.rd, string(list))
}

// existingIDs is which ids of list (a JSON array) are records.
func existingIDs(q querier, list string) (map[string]bool, error) {
	got, err := queryRows(q, `SELECT id FROM records WHERE id IN (SELECT value FROM json_each(?))`, []any{list},
		func(rows *sql.Rows) (string, error) {
			var id string
			err := rows.Scan(&id)
			return id, err
		})
	if err != nil {
		return nil, fmt.Errorf("check which records exist: %w", err)
	}
	found := make(map[string]bool, len(got))
	for _, id := range got {
		found[id] = true
	}
	return found, nil
}

// PutTrajectories inserts or replaces trajectories in one transaction
// (the curator saving a run's distilled packet, sample banks). Runs from
// outside — an import, an agent's trajectory_submit — go through
// AddTrajectories, which never replaces one.
func (s *Store) PutTrajectories(trs []review.Trajectory) error {
	return s.tx(context.Background(), func(t querier) error {
		for _, tr := range trs {
			if err := putTrajectory(t, tr, true); err != nil {
				return err
			}
		}
		return nil
	})
}

// AddTrajectories inserts new trajectories in one transaction, all or
// nothing. A run whose id the bank already holds is a *review.ExistsError
// and nothing is written: the check runs inside the write transaction, so
// of two processes storing one id at once, one wins and the other is told.
func (s *Store) AddTrajectories(trs []review.Trajectory) error {
	return s.tx(context.Background(), func(t querier) error {
		for _, tr := range trs {
			if err := putTrajectory(t, tr, false); err != nil {
				return err
			}
		}
		return nil
	})
}

// putTrajectory writes one trajectory and its retrieval links, replacing
// one with its id when replace is set (else that is a *review.ExistsError).
// A trajectory over review.MaxTrajectoryBytes as JSON is refused.
func putTrajectory(t querier, tr review.Trajectory, replace bool) error {
	if err := review.CheckID(tr.ID); err != nil {
		return fmt.Errorf("trajectory %s: field \"id\": %w", printable.Line(tr.ID), err)
	}
	body := marshal(tr)
	if len(body) > review.MaxTrajectoryBytes {
		return fmt.Errorf("trajectory %s is %d MiB as JSON, over the %d MiB a trajectory may hold", tr.ID, len(body)>>20, review.MaxTrajectoryBytes>>20)
	}
	if replace {
		if _, err := t.Exec(`INSERT INTO trajectories(id, body) VALUES(?, ?)
			ON CONFLICT(id) DO UPDATE SET body = excluded.body`, tr.ID, body); err != nil {
			return err
		}
		if _, err := t.Exec(`DELETE FROM retrievals WHERE trajectory_id = ?`, tr.ID); err != nil {
			return err
		}
	} else {
		var n int
		if err := t.QueryRow(`SELECT count(*) FROM trajectories WHERE id = ?`, tr.ID).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return &review.ExistsError{Kind: "trajectory", ID: tr.ID}
		}
		if _, err := t.Exec(`INSERT INTO trajectories(id, body) VALUES(?, ?)`, tr.ID, body); err != nil {
			return err
		}
	}
	for _, rid := range tr.Retrieved {
		if _, err := t.Exec(`INSERT INTO retrievals(record_id, trajectory_id) VALUES(?, ?) ON CONFLICT DO NOTHING`, rid, tr.ID); err != nil {
			return err
		}
	}
	return addChange(t, "trajectory", tr.ID)
}

// AddProposals queues proposals and the probe runs they cite, all or
// nothing. Ids are assigned when empty; every target must exist; a target
// version of 0 means "the current version".
func (s *Store) AddProposals(ps []review.Proposal, runs []review.ProbeRun) error {
	return s.tx(context.Background(), func(t querier) error {
		for _, run := range runs {
			if _, err := s.saveRun(t, run); err != nil {
				return err
			}
		}
		for i := range ps {
			p := ps[i]
			if !p.Op.Valid() {
				return fmt.Errorf("proposal %s: field \"op\": unknown op %q", p.ID, p.Op)
			}
			if f, m := review.CheckIDs("id", p.ID, "trajectory", p.Trajectory, "curator_run", p.CuratorRun); m != "" {
				return fmt.Errorf("proposal %s: field %q: %s", printable.Line(p.ID), f, m)
			}
			if m := review.CheckText(p.Rationale); m != "" {
				return fmt.Errorf("proposal %s: field \"rationale\": %s", printable.Line(p.ID), m)
			}
			if m := review.CheckTargetCount(p.Op, len(p.Targets)); m != "" {
				return fmt.Errorf("proposal %s: field \"targets\": %s", printable.Line(p.ID), m)
			}
			if p.ID == "" {
				id, err := nextID(t, "prop_", "proposals")
				if err != nil {
					return err
				}
				p.ID = id
			}
			for j, tg := range p.Targets {
				if err := review.CheckID(tg.ID); err != nil {
					return fmt.Errorf("proposal %s: field \"targets[%d].id\": %w", p.ID, j, err)
				}
				var cur int
				var status string
				err := t.QueryRow(`SELECT version, status FROM records WHERE id = ?`, tg.ID).Scan(&cur, &status)
				if errors.Is(err, sql.ErrNoRows) {
					return fmt.Errorf("proposal %s: field \"targets[%d].id\": record %q does not exist", p.ID, j, tg.ID)
				}
				if err != nil {
					return err
				}
				// Checked here, in the write transaction: a record retired
				// since the caller looked is refused, never revived. (A
				// decided proposal, as an exported bank holds, may name one.)
				if review.Status(status) == review.Retired && p.Op != review.OpSkip && (p.Status == "" || p.Status.Open()) {
					return fmt.Errorf("proposal %s: field \"targets[%d].id\": record %q is retired; propose changes to active records only", p.ID, j, tg.ID)
				}
				if tg.Version == 0 {
					p.Targets[j].Version = cur
				}
			}
			if p.Record != nil {
				rec := *p.Record
				if rec.Status == "" {
					rec.Status = review.Active
				}
				if err := review.ValidateRecord(&rec); err != nil {
					return fmt.Errorf("proposal %s: %w", p.ID, err)
				}
			}
			if p.Status == "" {
				p.Status = review.Pending
			}
			if p.Created.IsZero() {
				p.Created = s.Now()
			}
			rules, flagged := screenColumns(p.Screen)
			if _, err := t.Exec(`INSERT INTO proposals(id, status, created, body, screen_rules, flagged) VALUES(?,?,?,?,?,?)`,
				p.ID, string(p.Status), ts(p.Created), marshal(p), rules, flagged); err != nil {
				return fmt.Errorf("proposal %s: %w", p.ID, err)
			}
			if err := addChange(t, "proposal", p.ID); err != nil {
				return err
			}
			ps[i] = p
		}
		return nil
	})
}

func (s *Store) saveRun(q querier, run review.ProbeRun) (string, error) {
	if run.ID != "" {
		if err := review.CheckID(run.ID); err != nil {
			return "", fmt.Errorf("probe run %s: field \"id\": %w", printable.Line(run.ID), err)
		}
	}
	if run.ID == "" {
		id, err := nextID(q, "run_", "probe_runs")
		if err != nil {
			return "", err
		}
		run.ID = id
	}
	if run.At.IsZero() {
		run.At = s.Now()
	}
	if _, err := q.Exec(`INSERT INTO probe_runs(id, at, body) VALUES(?,?,?)`, run.ID, ts(run.At), marshal(run)); err != nil {
		return "", fmt.Errorf("probe run %s: %w", run.ID, err)
	}
	return run.ID, nil
}

// SaveProbeRun stores a probe run and returns its id.
func (s *Store) SaveProbeRun(run review.ProbeRun) (string, error) {
	var id string
	err := s.tx(context.Background(), func(t querier) error {
		var err error
		id, err = s.saveRun(t, run)
		return err
	})
	return id, err
}

// ProbeRun returns one stored probe run.
func (s *Store) ProbeRun(id string) (*review.ProbeRun, error) {
	var body string
	err := s.rd.QueryRow(`SELECT body FROM probe_runs WHERE id = ?`, id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("probe run", id)
	}
	if err != nil {
		return nil, err
	}
	var r review.ProbeRun
	return &r, unmarshal(body, &r)
}

// Attach links a stored probe run as evidence to a proposal or a record.
func (s *Store) Attach(runID, kind, id, actor string) error {
	if kind != "proposal" && kind != "record" {
		return fmt.Errorf("attach: kind %q is not proposal or record", kind)
	}
	if _, err := s.ProbeRun(runID); err != nil {
		return err
	}
	if kind == "proposal" {
		if _, err := s.Proposal(id); err != nil {
			return err
		}
	} else if _, err := s.Record(id); err != nil {
		return err
	}
	return s.tx(context.Background(), func(t querier) error {
		if _, err := t.Exec(`INSERT INTO attachments(run_id, kind, target, actor, at) VALUES(?,?,?,?,?)
			ON CONFLICT DO NOTHING`,
			runID, kind, id, actor, ts(s.Now())); err != nil {
			return err
		}
		return addChange(t, EvidenceChange, id)
	})
}

// ProbeRunsFor returns a proposal's or record's evidence: the runs it was
// made with, then the runs attached later, in order.
func (s *Store) ProbeRunsFor(kind, id string) ([]review.ProbeRun, error) {
	var ids []string
	switch kind {
	case "proposal":
		p, err := s.Proposal(id)
		if err != nil {
			return nil, err
		}
		ids = append(ids, p.Evidence.ProbeRuns...)
	case "record":
		r, err := s.Record(id)
		if err != nil {
			return nil, err
		}
		ids = append(ids, r.Provenance.ProbeRuns...)
	default:
		return nil, fmt.Errorf("probe runs: kind %q is not proposal or record", kind)
	}
	rows, err := s.rd.Query(`SELECT run_id FROM attachments WHERE kind = ? AND target = ? ORDER BY at, run_id`, kind, id)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var rid string
		if err := rows.Scan(&rid); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, rid)
	}
	rows.Close()
	seen := map[string]bool{}
	var out []review.ProbeRun
	for _, rid := range ids {
		if seen[rid] {
			continue
		}
		seen[rid] = true
		r, err := s.ProbeRun(rid)
		if err != nil {
			return nil, err
		}
		out = append(out, *r)
	}
	return out, nil
}

// SetCheckResults replaces the stored verify results of the records named in
// results. A record is suspect while any of its checks has a verdict other
// than same or env-changed. Results for a version the record has since left
// (it was edited while verify ran) are dropped: they checked other checks.
func (s *Store) SetCheckResults(results []review.CheckResult) error {
	return s.tx(context.Background(), func(t querier) error {
		done := map[string]bool{}
		for _, r := range results {
			if r.Version != 0 {
				var cur int
				if err := t.QueryRow(`SELECT version FROM records WHERE id = ?`, r.RecordID).Scan(&cur); err != nil && !errors.Is(err, sql.ErrNoRows) {
					return err
				}
				if cur != r.Version {
					continue
				}
			}
			if !done[r.RecordID] {
				if _, err := t.Exec(`DELETE FROM check_results WHERE record_id = ?`, r.RecordID); err != nil {
					return err
				}
				done[r.RecordID] = true
				if err := addChange(t, "record", r.RecordID); err != nil {
					return err
				}
			}
			if _, err := t.Exec(`INSERT INTO check_results(record_id, idx, verdict, body) VALUES(?,?,?,?)`,
				r.RecordID, r.Index, string(r.Verdict), marshal(r)); err != nil {
				return err
			}
		}
		return nil
	})
}

// CheckResults returns a record's last verify results, by check index.
func (s *Store) CheckResults(recordID string) ([]review.CheckResult, error) {
	return queryRows(s.rd, `SELECT body FROM check_results WHERE record_id = ? ORDER BY idx`, []any{recordID}, scanBody[review.CheckResult])
}

// LastSeq is the sequence number of the bank's latest change.
func (s *Store) LastSeq() (int64, error) {
	var n sql.NullInt64
	err := s.rd.QueryRow(`SELECT max(seq) FROM changes`).Scan(&n)
	return n.Int64, err
}

// ChangesSince lists the changes after seq, oldest first, one entry per
// object (its latest change).
func (s *Store) ChangesSince(seq int64) ([]review.Change, error) {
	return queryRows(s.rd, `SELECT max(seq), kind, id FROM changes WHERE seq > ? GROUP BY kind, id ORDER BY max(seq)`, []any{seq},
		func(rows *sql.Rows) (review.Change, error) {
			var c review.Change
			err := rows.Scan(&c.Seq, &c.Kind, &c.ID)
			return c, err
		})
}
