package review

import (
	"context"
	"time"
)

// Backend is the system of record behind a bank: what the application
// service (review/app) needs of a store. *Store (SQLite, one bank
// directory) implements it; a shared PostgreSQL store implements it too.
// Every implementation must pass the conformance suite in review/store/storetest.
//
// Writes are transactional: a decision and everything it changes commit
// together or not at all, and target versions are checked inside that
// transaction, so two processes deciding at once cannot both win (the loser
// gets a *ConflictError). Every committed change appends to the change
// sequence (LastSeq, ChangesSince), which indexes and watchers follow.
type Backend interface {
	// Config and environments (probe targets).
	Config() (Config, error)
	SaveConfig(c Config) error

	// Records and their versions.
	Record(id string) (*Record, error) // wrapped ErrNotFound when absent
	Records(f RecordFilter) ([]Record, error)
	History(id string) ([]Version, error)
	RecordVersion(id string, v int) (*Record, error)
	PutRecords(recs []Record, actor, reason string) error

	// Proposals, decisions, undo.
	Proposal(id string) (*Proposal, error)
	Proposals() ([]Proposal, error)
	Queue() ([]Proposal, error)
	Conflicts(p *Proposal) (*ConflictError, error)
	AddProposals(ps []Proposal, runs []ProbeRun) error
	Decide(ctx context.Context, req DecideRequest) (*Decision, error)
	DecideRecords(ctx context.Context, req RecordRequest) (*Decision, error)
	Undo(ctx context.Context, decisionID, operator, note string) (*Decision, error)
	Decision(id string) (*Decision, error)
	Decisions() ([]Decision, error)
	ProposalDecisions(proposalID string) ([]Decision, error) // undos included, in order

	// Trajectories and who retrieved what.
	Trajectory(id string) (*Trajectory, error)
	Trajectories() ([]Trajectory, error)
	PutTrajectories(trs []Trajectory) error
	RetrievedBy(recordID string) ([]TrajectoryUse, error)
	Worth(recordID string) (Worth, error) // retrieving tasks' outcomes vs the bank's
	// LogRetrieval records one retrieval call (client, task id, records);
	// Retrievals reads the log after a log seq (limit <= 0: all).
	LogRetrieval(r Retrieval) error
	Retrievals(since int64, limit int) ([]Retrieval, error)

	// Probe runs, evidence and check results.
	SaveProbeRun(run ProbeRun) (string, error)
	ProbeRun(id string) (*ProbeRun, error)
	Attach(runID, kind, id, actor string) error
	// AttachRun saves run and attaches it to a proposal or record in one
	// transaction; it returns the run's id.
	AttachRun(run ProbeRun, kind, id, actor string) (string, error)
	ProbeRunsFor(kind, id string) ([]ProbeRun, error)
	SetCheckResults(results []CheckResult) error
	CheckResults(recordID string) ([]CheckResult, error)

	// Claims: who is reviewing which proposal (review/claims.go).
	ClaimStore

	// The change sequence.
	LastSeq() (int64, error)
	ChangesSince(seq int64) ([]Change, error)

	// Now is the store's clock; Close releases it.
	Now() time.Time
	Close() error
}

var _ Backend = (*Store)(nil)
