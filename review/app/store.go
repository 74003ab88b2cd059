package app

import (
	"context"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
	"github.com/memreview/memreview/review/store/pg"
)

// Store is the system of record behind a bank: what the service needs of
// a store, defined here where it is used. The SQLite store (review/store,
// one bank directory) and the shared PostgreSQL store (review/store/pg)
// implement it, and both pass the conformance suite in
// review/store/storetest.
//
// Writes are transactional: a decision and everything it changes commit
// together or not at all, and target versions are checked inside that
// transaction, so two processes deciding at once cannot both win (the loser
// gets a *ConflictError). Every committed change appends to the change
// sequence (LastSeq, ChangesSince), which indexes and watchers follow.
type Store interface {
	// Config and environments (probe targets).
	Config() (review.Config, error)
	SaveConfig(c review.Config) error

	// Records and their versions.
	Record(id string) (*review.Record, error) // wrapped ErrNotFound when absent
	// RecordsByID reads the records of ids the bank holds (those it does
	// not are left out), in a few queries.
	RecordsByID(ids []string) (map[string]*review.Record, error)
	// RecordStandings reads the standing (status, category, priority,
	// confidence, suspect) of the records of ids the bank holds, without
	// decoding them.
	RecordStandings(ids []string) (map[string]review.RecordStanding, error)
	Records(f review.RecordFilter) ([]review.Record, error)
	History(id string) ([]review.Version, error)
	RecordVersion(id string, v int) (*review.Record, error)
	PutRecords(recs []review.Record, actor, reason string) error

	// Proposals, decisions, undo.
	Proposal(id string) (*review.Proposal, error)
	Proposals() ([]review.Proposal, error)
	Queue() ([]review.Proposal, error)
	Conflicts(p *review.Proposal) (*review.ConflictError, error)
	AddProposals(ps []review.Proposal, runs []review.ProbeRun) error
	Decide(ctx context.Context, req review.DecideRequest) (*review.Decision, error)
	DecideRecords(ctx context.Context, req review.RecordRequest) (*review.Decision, error)
	Undo(ctx context.Context, decisionID, operator, note string) (*review.Decision, error)
	Decision(id string) (*review.Decision, error)
	Decisions() ([]review.Decision, error)
	ProposalDecisions(proposalID string) ([]review.Decision, error) // undos included, in order

	// Trajectories and who retrieved what.
	Trajectory(id string) (*review.Trajectory, error)
	Trajectories() ([]review.Trajectory, error)
	PutTrajectories(trs []review.Trajectory) error // inserts or replaces (the curator's packets)
	// AddTrajectories inserts new runs, all or nothing; an id already in
	// the bank is a *review.ExistsError, checked inside the write.
	AddTrajectories(trs []review.Trajectory) error
	RetrievedBy(recordID string) ([]review.TrajectoryUse, error)
	Worth(recordID string) (review.Worth, error) // retrieving tasks' outcomes vs the bank's
	// LogRetrieval records one retrieval call (client, task id, records);
	// Retrievals reads the log after a log seq (limit <= 0: all).
	LogRetrieval(r review.Retrieval) error
	Retrievals(since int64, limit int) ([]review.Retrieval, error)

	// Probe runs, evidence and check results.
	SaveProbeRun(run review.ProbeRun) (string, error)
	ProbeRun(id string) (*review.ProbeRun, error)
	Attach(runID, kind, id, actor string) error
	// AttachRun saves run and attaches it to a proposal or record in one
	// transaction; it returns the run's id.
	AttachRun(run review.ProbeRun, kind, id, actor string) (string, error)
	ProbeRunsFor(kind, id string) ([]review.ProbeRun, error)
	SetCheckResults(results []review.CheckResult) error
	CheckResults(recordID string) ([]review.CheckResult, error)

	// Claims: who is reviewing which proposal (review/claims.go).
	review.ClaimStore

	// The poisoning screen's findings kept with proposals, agents'
	// credentials and the agent audit (issue 26; storetest.RunAgents).
	SetScreenings(screens map[string]*review.Screening) error
	FlaggedQueue() ([]review.Proposal, error)
	AddToken(tok review.AgentToken) error
	Tokens() ([]review.AgentToken, error)
	TokenByHash(hash string) (*review.AgentToken, error)
	ActiveTokens() (int, error)
	RevokeToken(name string) (*review.AgentToken, error)
	AppendAudit(entries []review.AuditEntry, keep int) error
	Audit(f review.AuditFilter) ([]review.AuditEntry, error)

	// The change sequence.
	LastSeq() (int64, error)
	ChangesSince(seq int64) ([]review.Change, error)

	// Now is the store's clock; Close releases it.
	Now() time.Time
	Close() error
}

var (
	_ Store = (*store.Store)(nil)
	_ Store = (*pg.Store)(nil)
)
