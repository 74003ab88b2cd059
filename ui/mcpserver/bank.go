// Package mcpserver owns memreview's MCP server: the tools memory_search,
// memory_read, memory_propose, proposal_status and trajectory_submit, the
// memory tool (a backend for Claude's memory_20250818, also at POST
// /memory), the resources memreview://records/{id} and memreview://proposals/{id} with
// resource-updated notifications when a proposal is decided, and the
// streamable-HTTP handler with its bearer-token check.
//
// The server never writes a record: an agent's write is always a pending
// proposal that a person decides. It reaches the bank only through Service,
// the calls it needs of the application service, never the store or index
// directly.
package mcpserver

import (
	"context"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

// Service is what the MCP server needs of the application service.
// Implementations must be safe for concurrent use.
type Service interface {
	// Retrieve returns what a task agent is given for a task (active
	// records, ranked as the retrieve command ranks them) and records the
	// call as a retrieval by req.Client for req.TaskID.
	Retrieve(ctx context.Context, req RetrieveRequest) ([]app.Retrieved, error)

	// Record returns a record's current version; wrapped review.ErrNotFound
	// when there is none.
	Record(ctx context.Context, id string) (*review.Record, error)

	// Propose validates p exactly as 'import proposals' does (a
	// *review.InputError naming the field when it is refused, and the queue
	// unchanged) and queues it as pending. It returns the proposal as stored.
	Propose(ctx context.Context, p review.Proposal) (*review.Proposal, error)

	// ProposalStatus returns a proposal and the decision that closed it (nil
	// while it is open or when its decision was undone).
	ProposalStatus(ctx context.Context, id string) (*review.Proposal, *review.Decision, error)

	// SubmitTrajectory reads data as 'import trajectories' reads a file
	// (name stands in for the file name: it seeds generated ids and appears
	// in errors) and stores the one run it holds, as a new run: an id the
	// bank holds is refused (a wrapped *review.ExistsError), never
	// replaced. The run keeps the records that session retrieved for it
	// (Retrieve with the same Session and TaskID equal to the run's id),
	// and no other session's.
	SubmitTrajectory(ctx context.Context, data []byte, name, session string) (*review.Trajectory, error)

	// LastSeq and Watch follow the bank's change sequence through the
	// service's one change follower, so the server hears of decisions made
	// by any process on the bank. Watch's channel closes when ctx ends or
	// the bank closes.
	LastSeq(ctx context.Context) (int64, error)
	Watch(ctx context.Context, since int64) <-chan []review.Change
}

// RetrieveRequest is one memory_search call.
type RetrieveRequest struct {
	Query  string   // task text
	Env    string   // scope filter: records for this environment or none
	Tags   []string // scope filter: records with one of these tags or none
	K      int      // at most this many (1..MaxK)
	Client string   // MCP client name from initialize
	TaskID string   // the task the agent works on ("" when it did not say)
	// Session identifies the MCP session (a random token per session): a
	// run it submits under TaskID is linked to these records.
	Session string
	// Select asks for LLM-guided selection before the search; Note, when
	// set, is told what fell back and why (no vectors, no chat endpoint).
	Select bool
	Note   func(string)
}
