// Package storebank gives the MCP server (review/mcpserver) its Bank
// straight from an open store and index. It stands in for the application
// service (review/service) until that offers the same calls; it holds no
// logic of its own beyond wiring: proposals are validated by
// review.ReadProposals and review.CheckProposalsInBank (what 'import
// proposals' runs) and trajectories read by review.ReadTrajectories (what
// 'import trajectories' runs).
package storebank

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/mcpserver"
)

// Bank serves the MCP server from a store and its index.
type Bank struct {
	Store *review.Store
	Index *index.Index

	mu      sync.Mutex
	synced  int64               // the bank sequence the index was last caught up to
	byTask  map[string][]string // task id → records retrieved for it, until its trajectory arrives
	clients map[string]string   // task id → client that retrieved for it
}

var _ mcpserver.Bank = (*Bank)(nil)

// New returns a Bank over an open store and index.
func New(s *review.Store, ix *index.Index) *Bank {
	return &Bank{Store: s, Index: ix, byTask: map[string][]string{}, clients: map[string]string{}}
}

// catchUp syncs the index when the bank changed since the last sync, so
// that records decided by another process are retrieved.
func (b *Bank) catchUp() error {
	seq, err := b.Store.LastSeq()
	if err != nil {
		return err
	}
	b.mu.Lock()
	stale := seq != b.synced
	b.mu.Unlock()
	if !stale {
		return nil
	}
	if err := b.Index.Sync(); err != nil {
		return err
	}
	b.mu.Lock()
	b.synced = max(b.synced, seq)
	b.mu.Unlock()
	return nil
}

// Retrieve runs index.Retrieve and records the records given for a task:
// on its trajectory when the bank has it, else until it is submitted.
func (b *Bank) Retrieve(ctx context.Context, req mcpserver.RetrieveRequest) ([]mcpserver.Retrieved, error) {
	if err := b.catchUp(); err != nil {
		return nil, err
	}
	hits, err := b.Index.Retrieve(req.Query, review.Scope{Env: req.Env, Tags: req.Tags}, req.K)
	if err != nil {
		return nil, err
	}
	out := make([]mcpserver.Retrieved, 0, len(hits))
	ids := make([]string, 0, len(hits))
	for _, h := range hits {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, err := b.Store.Record(h.ID)
		if errors.Is(err, review.ErrNotFound) {
			continue // retired or gone since the index saw it
		}
		if err != nil {
			return nil, err
		}
		out = append(out, mcpserver.Retrieved{Record: *r, Score: h.Score})
		ids = append(ids, r.ID)
	}
	if req.TaskID != "" && len(ids) > 0 {
		if err := b.recordRetrieval(req.TaskID, req.Client, ids); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (b *Bank) recordRetrieval(task, client string, ids []string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, err := b.Store.Trajectory(task)
	if err == nil {
		n := len(t.Retrieved)
		t.Retrieved = union(t.Retrieved, ids)
		if len(t.Retrieved) == n {
			return nil
		}
		return b.Store.PutTrajectories([]review.Trajectory{*t})
	}
	if !errors.Is(err, review.ErrNotFound) {
		return err
	}
	b.byTask[task] = union(b.byTask[task], ids)
	b.clients[task] = client
	return nil
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, id := range b {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// Record returns a record's current version.
func (b *Bank) Record(_ context.Context, id string) (*review.Record, error) {
	return b.Store.Record(id)
}

// Propose validates p as 'import proposals' does and queues it.
func (b *Bank) Propose(_ context.Context, p review.Proposal) (*review.Proposal, error) {
	line, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	const file = "memory_propose"
	ps, lines, err := review.ReadProposals(bytes.NewReader(line), file)
	if err != nil {
		return nil, err
	}
	if err := review.CheckProposalsInBank(file, ps, lines, b.Store); err != nil {
		return nil, err
	}
	if err := b.Store.AddProposals(ps, nil); err != nil {
		return nil, err
	}
	return &ps[0], nil
}

// ProposalStatus returns a proposal and the decision that closed it.
func (b *Bank) ProposalStatus(_ context.Context, id string) (*review.Proposal, *review.Decision, error) {
	p, err := b.Store.Proposal(id)
	if err != nil {
		return nil, nil, err
	}
	if p.Status.Open() {
		return p, nil, nil
	}
	ds, err := b.Store.Decisions()
	if err != nil {
		return nil, nil, err
	}
	for i := len(ds) - 1; i >= 0; i-- {
		if d := ds[i]; d.Proposal == id && d.Verb != review.Undo && d.UndoneBy == "" {
			return p, &d, nil
		}
	}
	return p, nil, nil
}

// SubmitTrajectory reads data as 'import trajectories' reads a file and
// stores its one run, with the records retrieved for it.
func (b *Bank) SubmitTrajectory(_ context.Context, data []byte, name string) (*review.Trajectory, error) {
	ts, err := review.ReadTrajectories(bytes.NewReader(data), name)
	if err != nil {
		return nil, err
	}
	if len(ts) != 1 {
		return nil, fmt.Errorf("it holds %d runs; submit one run per call", len(ts))
	}
	t := ts[0]
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, err := b.Store.Trajectory(t.ID); err == nil {
		return nil, fmt.Errorf("trajectory %s is already in the bank (proposals cite its steps, so it is not replaced); give the run a new id", t.ID)
	}
	t.Retrieved = union(t.Retrieved, b.byTask[t.ID])
	if err := b.Store.PutTrajectories([]review.Trajectory{t}); err != nil {
		return nil, err
	}
	delete(b.byTask, t.ID)
	delete(b.clients, t.ID)
	return &t, nil
}

// LastSeq is the bank's last change.
func (b *Bank) LastSeq(context.Context) (int64, error) { return b.Store.LastSeq() }

// ChangesSince lists the bank's changes after seq.
func (b *Bank) ChangesSince(_ context.Context, seq int64) ([]review.Change, error) {
	return b.Store.ChangesSince(seq)
}
