package app

// The MCP server's (ui/mcpserver) forms of Propose, ProposalDecisions
// and SubmitTrajectories: one proposal validated exactly as an import is,
// the one decision that closed a proposal, and one submitted run read as an
// import reads it.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/formats"
)

// ProposeChecked validates one proposal exactly as Import validates a
// proposals file (review.ReadProposals, then review.CheckProposalsInBank;
// file names the input in errors) and queues it with Propose (pending,
// whatever it claims). A refusal is a *review.InputError naming the field,
// and nothing is queued. It returns the proposal as stored (with its id
// and target versions).
func (s *Service) ProposeChecked(p review.Proposal, file string) (*review.Proposal, error) {
	line, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	ps, lines, err := formats.ReadProposals(bytes.NewReader(line), file)
	if err != nil {
		return nil, err
	}
	if err := formats.CheckProposalsInBank(file, ps, lines, s.b); err != nil {
		return nil, err
	}
	if err := s.Propose(ps, nil); err != nil {
		return nil, err
	}
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
	ds, err := s.b.ProposalDecisions(id)
	if err != nil {
		return nil, nil, err
	}
	for i := len(ds) - 1; i >= 0; i-- {
		if d := ds[i]; d.Verb != review.Undo && d.UndoneBy == "" {
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
// The run may be in any shape 'import trajectories' reads (review/formats
// picks the format from the document's shape).
func (s *Service) SubmitTrajectory(data []byte, name string) (*review.Trajectory, error) {
	ts, _, err := formats.ReadTrajectories(formats.NewInput(name, data), nil)
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
	// The retrieval log links records to a task's trajectory only when the
	// bank has it; an agent submits its run after retrieving for it.
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
	if err := s.SubmitTrajectories([]review.Trajectory{t}); err != nil {
		return nil, err
	}
	return &t, nil
}
