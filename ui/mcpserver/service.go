package mcpserver

import (
	"bytes"
	"context"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

// FromService is an application service as the server's Service: its calls,
// each one service use case.
func FromService(s *app.Service) Service { return appService{s} }

type appService struct{ s *app.Service }

func (b appService) Retrieve(ctx context.Context, req RetrieveRequest) ([]app.Retrieved, error) {
	res, err := b.s.RetrieveWith(ctx, app.RetrieveRequest{Task: req.Query, Scope: review.Scope{Env: req.Env, Tags: req.Tags},
		K: req.K, Client: "mcp:" + req.Client, TaskID: req.TaskID, Session: req.Session, Select: req.Select})
	if err != nil {
		return nil, err
	}
	if req.Note != nil {
		for _, n := range res.Notes {
			req.Note(n)
		}
	}
	return res.Records, nil
}

func (b appService) Record(_ context.Context, id string) (*review.Record, error) {
	return b.s.Record(id)
}

// Propose queues an agent's proposal, checked exactly as a line of an
// imported proposals file is; it is pending whatever it claims.
func (b appService) Propose(ctx context.Context, p review.Proposal) (*review.Proposal, error) {
	p.Status = review.Pending
	res, err := b.s.Import(ctx, app.KindProposals, []app.ImportInput{{Name: ToolPropose, Proposals: []review.Proposal{p}}}, app.ImportOptions{})
	if err != nil {
		return nil, err
	}
	return &res.Proposals[0], nil
}

func (b appService) ProposalStatus(_ context.Context, id string) (*review.Proposal, *review.Decision, error) {
	return b.s.ProposalDecision(id)
}

// SubmitTrajectory stores one run, read as 'import trajectories' reads a
// file (name seeds the id of a run that carries none).
func (b appService) SubmitTrajectory(ctx context.Context, data []byte, name, session string) (*review.Trajectory, error) {
	res, err := b.s.Import(ctx, app.KindTrajectories, []app.ImportInput{{Name: name, R: bytes.NewReader(data)}}, app.ImportOptions{One: true, Session: session})
	if err != nil {
		return nil, err
	}
	return &res.Trajectories[0], nil
}

func (b appService) LastSeq(context.Context) (int64, error) { return b.s.LastSeq() }

func (b appService) Watch(ctx context.Context, since int64) <-chan []review.Change {
	out := make(chan []review.Change)
	go func() {
		defer close(out)
		for cs := range b.s.Watch(ctx, since) {
			select {
			case out <- cs.Changes:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}
