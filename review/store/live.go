package store

import (
	"fmt"
	"slices"

	"github.com/memreview/memreview/review"
)

// liveRunsOf reads the live runs attached to a proposal, inside a decision's
// transaction.
func liveRunsOf(q querier, proposal string) ([]review.ProbeRun, error) {
	runs, err := queryRows(q, `SELECT r.body FROM attachments a JOIN probe_runs r ON r.id = a.run_id
		WHERE a.kind = 'proposal' AND a.target = ?`, []any{proposal}, scanBody[review.ProbeRun])
	if err != nil {
		return nil, fmt.Errorf("read the live runs of %s: %w", proposal, err)
	}
	return slices.DeleteFunc(runs, func(r review.ProbeRun) bool { return !r.Live() }), nil
}
