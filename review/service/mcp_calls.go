package service

// Use cases the MCP server (review/mcpserver) needs beyond the ones the CLI
// and TUI share: queue one proposal validated as an import is, the decision
// that closed a proposal, and store one submitted trajectory.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/memreview/memreview/review"
)

// Propose validates one proposal exactly as Import validates a proposals
// file (review.ReadProposals, then review.CheckProposalsInBank; file names
// the input in errors) and queues it as pending. A refusal is a
// *review.InputError naming the field, and nothing is queued. It returns
// the proposal as stored (with its id and target versions).
func (s *Service) Propose(p review.Proposal, file string) (*review.Proposal, error) {
	line, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	ps, lines, err := review.ReadProposals(bytes.NewReader(line), file)
	if err != nil {
		return nil, err
	}
	if err := review.CheckProposalsInBank(file, ps, lines, s.b); err != nil {
		return nil, err
	}
	if err := s.b.AddProposals(ps, nil); err != nil {
		return nil, err
	}
	s.afterWrite("proposal " + ps[0].ID)
	return &ps[0], nil
}

// ProposalDecision returns a proposal and the decision that closed it: nil
// while the proposal is open, or when its decision was undone.
func (s *Service) ProposalDecision(id string) (*review.Proposal, *review.Decision, error) {
	p, err := s.b.Proposal(id)
	if err != nil {
		return nil, nil, err
	}
	if p.Status.Open() {
		return p, nil, nil
	}
	ds, err := s.b.Decisions()
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

// SubmitTrajectory reads data as Import reads a trajectories file (name
// stands in for the file name: it seeds the ids of runs that carry none
// and appears in errors) and stores the one run it must hold. A run
// already in the bank is refused (proposals cite its steps). Records the
// retrieval log gave for the run's id (a task agent's task_id) are linked
// to it, so RetrievedBy shows how the task ended.
//
// Hook: trajectories in other agents' formats (review/adapt) belong here
// too, once the adapters offer a reader of one document.
func (s *Service) SubmitTrajectory(data []byte, name string) (*review.Trajectory, error) {
	ts, err := review.ReadTrajectories(bytes.NewReader(data), name)
	if err != nil {
		return nil, err
	}
	if len(ts) != 1 {
		return nil, fmt.Errorf("it holds %d runs; submit one run per call", len(ts))
	}
	t := ts[0]
	if _, err := s.b.Trajectory(t.ID); err == nil {
		return nil, fmt.Errorf("trajectory %s is already in the bank (proposals cite its steps, so it is not replaced); give the run a new id", t.ID)
	} else if !errors.Is(err, review.ErrNotFound) {
		return nil, err
	}
	log, err := s.b.Retrievals(0, 0)
	if err != nil {
		return nil, err
	}
	for _, r := range log {
		if r.TaskID != t.ID {
			continue
		}
		for _, id := range r.Records {
			if !slices.Contains(t.Retrieved, id) {
				t.Retrieved = append(t.Retrieved, id)
			}
		}
	}
	if err := s.b.PutTrajectories([]review.Trajectory{t}); err != nil {
		return nil, err
	}
	s.afterWrite("trajectory " + t.ID)
	return &t, nil
}
