package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"

	"github.com/memreview/memreview/review"
)

// screenColumns are a proposal's screening as the proposals table keeps
// it beside the body: the rules version and whether it is flagged.
func screenColumns(sc *review.Screening) (string, int) {
	if sc == nil {
		return "", 0
	}
	if len(sc.Findings) > 0 {
		return sc.Rules, 1
	}
	return sc.Rules, 0
}

// SetScreenings replaces the screenings of proposals (id → screening),
// in one transaction: the service screens open proposals again when the
// rules change. Each proposal's change is announced.
func (s *Store) SetScreenings(screens map[string]*review.Screening) error {
	return s.tx(context.Background(), func(t querier) error {
		for id, sc := range screens {
			p, err := getProposal(t, id)
			if err != nil {
				return err
			}
			p.Screen = sc
			rules, flagged := screenColumns(sc)
			if _, err := t.Exec(`UPDATE proposals SET body = ?, screen_rules = ?, flagged = ? WHERE id = ?`, marshal(p), rules, flagged, id); err != nil {
				return fmt.Errorf("proposal %s: %w", id, err)
			}
			if err := addChange(t, "proposal", id); err != nil {
				return err
			}
		}
		return nil
	})
}

// FlaggedQueue returns the open proposals the screen flagged, as Queue
// orders them.
func (s *Store) FlaggedQueue() ([]review.Proposal, error) {
	q, err := s.Queue()
	if err != nil {
		return nil, err
	}
	out := q[:0]
	for _, p := range q {
		if p.Flagged() {
			out = append(out, p)
		}
	}
	return out, nil
}

// AddToken stores an agent's credential. A name already held by an
// active token is refused; a revoked token's name is reused (its old
// hash no longer opens anything).
func (s *Store) AddToken(tok review.AgentToken) error {
	if err := review.CheckAgentName(tok.Name); err != nil {
		return fmt.Errorf("token: field \"name\": %w", err)
	}
	if tok.Hash == "" {
		return errors.New("token: field \"hash\" is empty")
	}
	if tok.Created.IsZero() {
		tok.Created = s.Now()
	}
	return s.tx(context.Background(), func(t querier) error {
		var revoked string
		err := t.QueryRow(`SELECT revoked FROM agent_tokens WHERE name = ?`, tok.Name).Scan(&revoked)
		switch {
		case err == nil && revoked == "":
			return fmt.Errorf("token %s exists; revoke it first (token revoke %s)", tok.Name, tok.Name)
		case err == nil:
			if _, err := t.Exec(`DELETE FROM agent_tokens WHERE name = ?`, tok.Name); err != nil {
				return err
			}
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		if _, err := t.Exec(`INSERT INTO agent_tokens(name, hash, revoked, body) VALUES(?,?,?,?)`, tok.Name, tok.Hash, "", marshal(tok)); err != nil {
			return fmt.Errorf("token %s: %w", tok.Name, err)
		}
		return nil
	})
}

// Tokens lists every credential, revoked ones too, by name.
func (s *Store) Tokens() ([]review.AgentToken, error) {
	return queryRows(s.rd, `SELECT body FROM agent_tokens ORDER BY name`, nil, scanBody[review.AgentToken])
}

// TokenByHash returns the credential whose hash is hash (revoked or
// not); wrapped ErrNotFound when none is.
func (s *Store) TokenByHash(hash string) (*review.AgentToken, error) {
	var body string
	err := s.rd.QueryRow(`SELECT body FROM agent_tokens WHERE hash = ?`, hash).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("token", "with that hash")
	}
	if err != nil {
		return nil, err
	}
	var t review.AgentToken
	return &t, unmarshal(body, &t)
}

// ActiveTokens counts the credentials not revoked.
func (s *Store) ActiveTokens() (int, error) {
	var n int
	err := s.rd.QueryRow(`SELECT count(*) FROM agent_tokens WHERE revoked = ''`).Scan(&n)
	return n, err
}

// RevokeToken revokes the named credential: its next request is refused.
func (s *Store) RevokeToken(name string) (*review.AgentToken, error) {
	var tok review.AgentToken
	err := s.tx(context.Background(), func(t querier) error {
		var body string
		err := t.QueryRow(`SELECT body FROM agent_tokens WHERE name = ?`, name).Scan(&body)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound("token", name)
		}
		if err != nil {
			return err
		}
		if err := unmarshal(body, &tok); err != nil {
			return err
		}
		if !tok.Active() {
			return fmt.Errorf("token %s was revoked at %s", name, ts(tok.Revoked))
		}
		tok.Revoked = s.Now()
		_, err = t.Exec(`UPDATE agent_tokens SET revoked = ?, body = ? WHERE name = ?`, ts(tok.Revoked), marshal(tok), name)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &tok, nil
}

// AppendAudit appends entries to the agent audit and then drops the
// oldest entries past keep (keep <= 0: review.DefaultAuditCap). Entries
// are never changed once written.
func (s *Store) AppendAudit(entries []review.AuditEntry, keep int) error {
	if keep <= 0 {
		keep = review.DefaultAuditCap
	}
	return s.tx(context.Background(), func(t querier) error {
		for _, e := range entries {
			if e.At.IsZero() {
				e.At = s.Now()
			}
			e.Seq = 0
			if _, err := t.Exec(`INSERT INTO agent_audit(at, agent, body) VALUES(?,?,?)`, ts(e.At), e.Agent, marshal(e)); err != nil {
				return fmt.Errorf("audit: %w", err)
			}
		}
		var last int64
		if err := t.QueryRow(`SELECT coalesce(max(seq), 0) FROM agent_audit`).Scan(&last); err != nil {
			return err
		}
		if last > int64(keep) {
			if _, err := t.Exec(`DELETE FROM agent_audit WHERE seq <= ?`, last-int64(keep)); err != nil {
				return fmt.Errorf("audit: trim: %w", err)
			}
		}
		return nil
	})
}

// Audit returns the audit entries f selects, oldest first.
func (s *Store) Audit(f review.AuditFilter) ([]review.AuditEntry, error) {
	where, args := `WHERE at >= ?`, []any{""}
	if !f.Since.IsZero() {
		args[0] = ts(f.Since)
	}
	if f.Agent != "" {
		where += ` AND agent = ?`
		args = append(args, f.Agent)
	}
	limit := int64(math.MaxInt64)
	if f.Limit > 0 {
		limit = int64(f.Limit)
	}
	args = append(args, limit)
	type row struct {
		seq  int64
		body string
	}
	rows, err := s.rd.Query(`SELECT seq, body FROM agent_audit `+where+` ORDER BY seq DESC LIMIT ?`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []review.AuditEntry
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.seq, &r.body); err != nil {
			return nil, err
		}
		var e review.AuditEntry
		if err := unmarshal(r.body, &e); err != nil {
			return nil, err
		}
		e.Seq = r.seq
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}
