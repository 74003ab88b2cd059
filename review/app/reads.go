package app

import (
	"time"

	"github.com/memreview/memreview/review"
)

// Reads of the bank, as the store answers them: front ends read through
// the service, never the store itself.

func (s *Service) Config() (review.Config, error)           { return s.b.Config() }
func (s *Service) Record(id string) (*review.Record, error) { return s.b.Record(id) }
func (s *Service) Records(f review.RecordFilter) ([]review.Record, error) {
	return s.b.Records(f)
}
func (s *Service) History(id string) ([]review.Version, error) { return s.b.History(id) }
func (s *Service) RecordVersion(id string, v int) (*review.Record, error) {
	return s.b.RecordVersion(id, v)
}
func (s *Service) Proposal(id string) (*review.Proposal, error) { return s.b.Proposal(id) }
func (s *Service) Proposals() ([]review.Proposal, error)        { return s.b.Proposals() }
func (s *Service) Queue() ([]review.Proposal, error)            { return s.b.Queue() }
func (s *Service) Conflicts(p *review.Proposal) (*review.ConflictError, error) {
	return s.b.Conflicts(p)
}
func (s *Service) Decision(id string) (*review.Decision, error) { return s.b.Decision(id) }
func (s *Service) Decisions() ([]review.Decision, error)        { return s.b.Decisions() }
func (s *Service) ProposalDecisions(id string) ([]review.Decision, error) {
	return s.b.ProposalDecisions(id)
}
func (s *Service) Trajectory(id string) (*review.Trajectory, error) { return s.b.Trajectory(id) }
func (s *Service) Trajectories() ([]review.Trajectory, error)       { return s.b.Trajectories() }
func (s *Service) RetrievedBy(recordID string) ([]review.TrajectoryUse, error) {
	return s.b.RetrievedBy(recordID)
}
func (s *Service) Retrievals(since int64, limit int) ([]review.Retrieval, error) {
	return s.b.Retrievals(since, limit)
}
func (s *Service) ProbeRun(id string) (*review.ProbeRun, error) { return s.b.ProbeRun(id) }
func (s *Service) ProbeRunsFor(kind, id string) ([]review.ProbeRun, error) {
	return s.b.ProbeRunsFor(kind, id)
}
func (s *Service) CheckResults(recordID string) ([]review.CheckResult, error) {
	return s.b.CheckResults(recordID)
}
func (s *Service) LastSeq() (int64, error) { return s.b.LastSeq() }

// Now is the store's clock.
func (s *Service) Now() time.Time { return s.b.Now() }
