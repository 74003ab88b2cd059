package review

import (
	"context"
	"fmt"

	"github.com/memreview/memreview/probe"
)

// Verify re-runs the checks of every active record (only those on env when
// env is not empty), stores the results, and returns them. A record whose
// checks no longer hold becomes suspect; one whose checks hold again stops
// being suspect.
//
// The config is read once, first: an unreadable or invalid memreview.toml
// is an error before anything runs or is written, not a failed check on
// every record.
func (s *Store) Verify(ctx context.Context, env string) ([]CheckResult, error) {
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
	recs, err := s.Records(RecordFilter{Status: Active})
	if err != nil {
		return nil, err
	}
	var out []CheckResult
	for _, r := range recs {
		for i, c := range r.Checks {
			if env != "" && c.Env != env {
				continue
			}
			res := CheckResult{RecordID: r.ID, Version: r.Version, Index: i, Env: c.Env, Input: c.Input, At: s.Now()}
			e, err := s.resolveIn(cfg, c.Env)
			if err != nil {
				res.Now = probe.Result{Env: c.Env, Input: c.Input, Error: err.Error()}
			} else {
				res.Now = probe.Run(ctx, e, c.Input, probe.Limits{})
			}
			res.Verdict = probe.Compare(c.Expect, res.Now)
			out = append(out, res)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, s.SetCheckResults(out)
}

// Holds reports whether a verdict means the check still holds.
func Holds(v probe.Verdict) bool { return v == probe.Same || v == probe.EnvChanged }
