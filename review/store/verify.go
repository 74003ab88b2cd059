package store

import (
	"context"
	"fmt"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

// Verify re-runs the checks of every active record (only those on env when
// env is not empty), stores the results, and returns them. A record whose
// checks no longer hold becomes suspect; one whose checks hold again stops
// being suspect.
//
// The config is read once, first: an unreadable or invalid memreview.toml
// is an error before anything runs or is written, not a failed check on
// every record.
func (s *Store) Verify(ctx context.Context, env string) ([]review.CheckResult, error) {
	cfg, err := s.Config()
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	if env != "" {
		// A misspelt name would otherwise verify nothing and report success.
		if _, err := s.resolveIn(cfg, env); err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
	}
	recs, err := s.Records(review.RecordFilter{Status: review.Active})
	if err != nil {
		return nil, err
	}
	out := review.RunChecks(ctx, recs, env, func(name string) (probe.Env, error) { return s.resolveIn(cfg, name) }, s.Now)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, s.SetCheckResults(out)
}
