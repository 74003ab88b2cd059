package hygiene

import (
	"time"

	"github.com/memreview/memreview/review"
)

// Store is what Load reads of a bank (the service's store has it all).
type Store interface {
	RecordsByID(ids []string) (map[string]*review.Record, error) // those it holds, in a few queries
	Records(f review.RecordFilter) ([]review.Record, error)
	CheckResults(recordID string) ([]review.CheckResult, error)
	Trajectories() ([]review.Trajectory, error)
	Queue() ([]review.Proposal, error)
	Proposals() ([]review.Proposal, error)
	Now() time.Time
}

// Load reads a run's input from a bank: the active records (of env, when
// set), the last verify results of those that carry checks, the
// trajectories, the open proposals and hygiene's rejected ones.
func Load(s Store, env string) (Input, error) {
	in := Input{Checks: map[string][]review.CheckResult{}, Now: s.Now()}
	var err error
	if in.Records, err = s.Records(review.RecordFilter{Status: review.Active, Env: env}); err != nil {
		return in, err
	}
	for _, r := range in.Records {
		if len(r.Checks) == 0 {
			continue
		}
		cs, err := s.CheckResults(r.ID)
		if err != nil {
			return in, err
		}
		if len(cs) > 0 {
			in.Checks[r.ID] = cs
		}
	}
	if in.Trajectories, err = s.Trajectories(); err != nil {
		return in, err
	}
	if in.Open, err = s.Queue(); err != nil {
		return in, err
	}
	all, err := s.Proposals()
	for _, p := range all {
		if p.Source == Source && p.Status == review.Rejected {
			in.Rejected = append(in.Rejected, p)
		}
	}
	return in, err
}

// Save queues the proposals of the report's new findings and the probe runs
// they cite, all or nothing, and returns the proposals as saved (with ids).
func Save(s interface {
	AddProposals(ps []review.Proposal, runs []review.ProbeRun) error
}, r *Report) ([]review.Proposal, error) {
	var ps []review.Proposal
	var runs []review.ProbeRun
	for _, f := range r.New() {
		ps = append(ps, f.Proposal)
		runs = append(runs, f.Runs...)
	}
	if len(ps) == 0 {
		return nil, nil
	}
	if err := s.AddProposals(ps, runs); err != nil {
		return nil, err
	}
	return ps, nil
}
