package app

import (
	"time"

	"github.com/memreview/memreview/review"
)

// Claim claims a proposal for operator for ttl (0: review.ClaimTTL), or
// renews the claim operator already holds; another operator's live claim
// is a *review.ClaimedError naming who is reviewing it.
func (s *Service) Claim(proposalID, operator string, ttl time.Duration) (review.Claim, error) {
	if operator == "" {
		operator = s.opt.Operator
	}
	if ttl <= 0 {
		ttl = review.ClaimTTL
	}
	return s.b.Claim(proposalID, operator, ttl)
}

// Release gives up operator's claim on a proposal (none held: no error).
func (s *Service) Release(proposalID, operator string) error {
	if operator == "" {
		operator = s.opt.Operator
	}
	return s.b.Release(proposalID, operator)
}

// Claims lists the live claims.
func (s *Service) Claims() ([]review.Claim, error) { return s.b.Claims() }
