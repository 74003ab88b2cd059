package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/memreview/memreview/review"
)

// Claim claims an open proposal for operator for ttl, or renews the claim
// the operator already holds. A live claim by someone else is a
// *ClaimedError; an expired one is taken over. Claims go on the change
// feed (kind "claim"), so other processes see them.
func (s *Store) Claim(proposalID, operator string, ttl time.Duration) (review.Claim, error) {
	if strings.TrimSpace(operator) == "" {
		return review.Claim{}, errors.New("claim: no operator given")
	}
	if ttl <= 0 {
		return review.Claim{}, fmt.Errorf("claim: ttl %v is not positive", ttl)
	}
	c := review.Claim{Proposal: proposalID, Operator: operator}
	err := s.tx(context.Background(), func(t querier) error {
		p, err := getProposal(t, proposalID)
		if err != nil {
			return err
		}
		if !p.Status.Open() {
			return &review.ConflictError{Proposal: p.ID, Status: p.Status}
		}
		now := s.Now()
		var holder, until string
		err = t.QueryRow(`SELECT operator, expires FROM claims WHERE proposal = ?`, proposalID).Scan(&holder, &until)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if err == nil && holder != operator && parseTS(until).After(now) {
			return &review.ClaimedError{Claim: review.Claim{Proposal: proposalID, Operator: holder, Expires: parseTS(until)}}
		}
		c.Expires = now.Add(ttl)
		if _, err := t.Exec(`INSERT INTO claims(proposal, operator, expires) VALUES(?,?,?)
			ON CONFLICT(proposal) DO UPDATE SET operator = excluded.operator, expires = excluded.expires`,
			proposalID, operator, ts(c.Expires)); err != nil {
			return err
		}
		return addChange(t, "claim", proposalID)
	})
	if err != nil {
		return review.Claim{}, err
	}
	return c, nil
}

// Release gives up operator's claim on a proposal (leaving the screen,
// deciding, quitting). Releasing a claim one does not hold does nothing.
func (s *Store) Release(proposalID, operator string) error {
	return s.tx(context.Background(), func(t querier) error {
		res, err := t.Exec(`DELETE FROM claims WHERE proposal = ? AND operator = ?`, proposalID, operator)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		return addChange(t, "claim", proposalID)
	})
}

// Claims returns the live claims on open proposals, by proposal id: what
// the queue shows beside each proposal.
func (s *Store) Claims() ([]review.Claim, error) {
	return queryRows(s.rd, `SELECT c.proposal, c.operator, c.expires FROM claims c JOIN proposals p ON p.id = c.proposal
		WHERE c.expires > ? AND p.status IN ('pending', 'deferred') ORDER BY c.proposal`, []any{ts(s.Now())},
		func(rows *sql.Rows) (review.Claim, error) {
			var c review.Claim
			var until string
			err := rows.Scan(&c.Proposal, &c.Operator, &until)
			c.Expires = parseTS(until)
			return c, err
		})
}
