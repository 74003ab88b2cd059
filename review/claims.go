package review

import (
	"fmt"
	"time"
)

// ClaimTTL is how long opening a proposal claims it. A TUI renews its claim
// while the proposal stays on screen; a crashed one stops renewing and the
// claim lapses, returning the proposal to the others.
const ClaimTTL = 5 * time.Minute

// Claim says an operator is reviewing a proposal until Expires. It is
// advice, not a lock: others see "being reviewed by alice" and skip the
// proposal by default, and a decision by anyone still goes through the
// usual conflict checks.
type Claim struct {
	Proposal string    `json:"proposal"`
	Operator string    `json:"operator"`
	Expires  time.Time `json:"expires"`
}

// ClaimedError says another operator holds a live claim on the proposal.
type ClaimedError struct{ Claim Claim }

func (e *ClaimedError) Error() string {
	return fmt.Sprintf("proposal %s is being reviewed by %s (claim until %s)",
		e.Claim.Proposal, e.Claim.Operator, e.Claim.Expires.Format(time.TimeOnly))
}

// Unclaimed filters a queue to the proposals operator may take by default:
// those nobody else holds a live claim on.
func Unclaimed(queue []Proposal, claims []Claim, operator string) []Proposal {
	held := map[string]bool{}
	for _, c := range claims {
		if c.Operator != operator {
			held[c.Proposal] = true
		}
	}
	var out []Proposal
	for _, p := range queue {
		if !held[p.ID] {
			out = append(out, p)
		}
	}
	return out
}

// ClaimStore is the claims part of a store (app.Store embeds it).
type ClaimStore interface {
	Claim(proposalID, operator string, ttl time.Duration) (Claim, error)
	Release(proposalID, operator string) error
	Claims() ([]Claim, error) // live claims on open proposals
}
