package mcpserver

// The five tools. A handler's ordinary error becomes a tool error result
// (isError) that the agent reads; it is one sentence naming what is wrong.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
)

// addTools declares the read tools (read) and the write tools (write) on
// m, each guarded by the scope it needs (withScope).
func (s *Server) addTools(m *mcp.Server, read, write bool) {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)}
	if read {
		s.addReadTools(m, readOnly)
	}
	if !write {
		return
	}
	wt := &mcp.ToolAnnotations{ReadOnlyHint: false, DestructiveHint: new(bool), OpenWorldHint: new(bool)}
	addTool(m, &mcp.Tool{Name: ToolPropose, Title: "Propose a memory change", Annotations: wt,
		Description: proposeDescription},
		withScope(review.ScopePropose, s.propose))
	addTool(m, &mcp.Tool{Name: ToolSubmit, Title: "Submit a trajectory", Annotations: wt,
		Description: submitDescription},
		withScope(review.ScopePropose, s.submit))
}

func (s *Server) addReadTools(m *mcp.Server, readOnly *mcp.ToolAnnotations) {
	addTool(m, &mcp.Tool{Name: ToolSearch, Title: "Search memory", Annotations: readOnly,
		Description: "Get the memory records that apply to a task, best first: active, reviewed lessons (facts, procedures, warnings, strategies …) with their scope, trigger and steps. Call it before you start a task, with the task text as query; pass env and tags to keep records for other environments out, and task_id so the bank knows which records your task used."},
		withScope(review.ScopeRead, s.search))
	addTool(m, &mcp.Tool{Name: ToolRead, Title: "Read a memory record", Annotations: readOnly,
		Description: "Read one memory record in full: scope, trigger, steps, checks, provenance, status and version. An unknown id is an error."},
		withScope(review.ScopeRead, s.read))
	addTool(m, &mcp.Tool{Name: ToolStatus, Title: "Proposal status", Annotations: readOnly,
		Description: "Where a proposal made with memory_propose stands: pending or deferred until a person decides; then accepted, narrowed, merged, edited, rejected or deleted, with the decision id, the records it wrote, who decided, their note and when."},
		withScope(review.ScopeRead, s.status))
}

const (
	proposeDescription = "Propose a change to the memory bank. It does not change the bank: it queues a pending proposal that a person reviews (with your trajectory and live probes) and accepts, narrows, merges, edits, rejects or defers. op create needs record; update and narrow need one target and record; merge needs targets and record; delete needs targets; skip records that nothing should change. Cite trajectory_id and steps (from trajectory_submit) so the reviewer can see the evidence. The proposal remembers the record versions you read, so a change made meanwhile is shown to the reviewer as a conflict. Returns the proposal id; poll proposal_status for the decision."
	submitDescription  = "Store one finished run (the task, its messages and tool calls, and how it ended) so proposals can cite its steps and reviewers can read it. Accepts memreview's trajectory JSON, OpenAI chat messages, and the formats of SWE-agent, OpenTelemetry GenAI or OpenInference spans, Langfuse, Inspect AI, OpenHands and ATIF (run 'memreview formats'). Returns the trajectory id and its number of steps."
)

func (s *Server) search(ctx context.Context, req *mcp.CallToolRequest, in SearchIn) (*mcp.CallToolResult, SearchOut, error) {
	k := in.K
	switch {
	case k == 0:
		k = DefaultK
	case k < 0 || k > MaxK:
		return nil, SearchOut{}, fmt.Errorf("field \"k\": %d is outside 1..%d", k, MaxK)
	}
	p := principalOf(req.Extra)
	env, tags, err := searchScope(p, in.Env, in.Tags)
	if err != nil {
		return nil, SearchOut{}, err
	}
	hits, err := s.bank.Retrieve(ctx, RetrieveRequest{Query: in.Query, Env: env, Tags: tags, K: k,
		Client: agentLabel(p, req.Session), TaskID: strings.TrimSpace(in.TaskID), Session: s.sessionToken(req.Session)})
	if err != nil {
		return nil, SearchOut{}, fmt.Errorf("search failed: %w", err)
	}
	out := SearchOut{Records: make([]SearchHit, 0, len(hits))}
	for _, h := range hits {
		r := h.Record
		if !p.Sees(&r) {
			continue
		}
		s.saw(req.Session, r.ID, r.Version)
		out.Records = append(out.Records, SearchHit{ID: r.ID, Lemma: r.Lemma, Category: string(r.Category), Scope: r.Scope,
			Trigger: r.Trigger, Steps: r.Steps, Confidence: r.Confidence, Priority: r.Priority, Version: r.Version, Score: h.Score})
	}
	return nil, out, nil
}

func (s *Server) read(ctx context.Context, req *mcp.CallToolRequest, in ReadIn) (*mcp.CallToolResult, RecordOut, error) {
	r, err := s.record(ctx, in.ID)
	if err == nil && !principalOf(req.Extra).Sees(r) {
		err = noRecord(in.ID)
	}
	if err != nil {
		return nil, RecordOut{}, err
	}
	s.saw(req.Session, r.ID, r.Version)
	return nil, recordOut(r), nil
}

// record reads a record, turning an unknown id into a sentence.
func (s *Server) record(ctx context.Context, id string) (*review.Record, error) {
	if strings.TrimSpace(id) == "" {
		return nil, errors.New("field \"id\": missing record id")
	}
	r, err := s.bank.Record(ctx, id)
	if errors.Is(err, review.ErrNotFound) {
		return nil, noRecord(id)
	}
	if err != nil {
		return nil, fmt.Errorf("read record %s failed: %w", id, err)
	}
	return r, nil
}

func recordOut(r *review.Record) RecordOut {
	out := RecordOut{ID: r.ID, Lemma: r.Lemma, Category: string(r.Category), Scope: r.Scope, Trigger: r.Trigger, Steps: r.Steps,
		Confidence: r.Confidence, Priority: r.Priority, Provenance: r.Provenance, Status: string(r.Status), Version: r.Version, Suspect: r.Suspect}
	if !r.Updated.IsZero() {
		out.Updated = r.Updated.Format(time.RFC3339)
	}
	for _, c := range r.Checks {
		out.Checks = append(out.Checks, CheckOut{Env: c.Env, Input: c.Input, Columns: c.Expect.Columns, Rows: c.Expect.Rows, Text: c.Expect.Text})
	}
	return out
}

func (s *Server) propose(ctx context.Context, req *mcp.CallToolRequest, in ProposeIn) (*mcp.CallToolResult, ProposeOut, error) {
	who := principalOf(req.Extra)
	if err := s.proposeScope(ctx, who, &in); err != nil {
		return nil, ProposeOut{}, err
	}
	if err := s.limit.allow(who.Agent(), who.RatePerMin); err != nil {
		return nil, ProposeOut{}, err
	}
	p := s.proposal(req.Session, who, in)
	stored, err := s.bank.Propose(ctx, p)
	if err != nil {
		return nil, ProposeOut{}, proposeError(err, in)
	}
	s.log.Info("proposal queued", "proposal", stored.ID, "op", stored.Op, "source", stored.Source)
	return nil, ProposeOut{ProposalID: stored.ID, Status: string(review.Pending)}, nil
}

// proposal builds the review.Proposal a memory_propose call asks for. Its
// source is "mcp:" + the credential's name (the client's own name for the
// local user and the shared token), kept as text; its curator run is an
// id made of it; each target carries the version the session read (0,
// the current version, when it read none).
func (s *Server) proposal(ss *mcp.ServerSession, who *Principal, in ProposeIn) review.Proposal {
	label := agentLabel(who, ss)
	p := review.Proposal{Op: review.Op(strings.TrimSpace(in.Op)), Rationale: strings.TrimSpace(in.Rationale),
		Trajectory: strings.TrimSpace(in.TrajectoryID), Source: "mcp:" + label, CuratorRun: "mcp:" + idSafe(label), Status: review.Pending}
	for _, id := range in.Targets {
		p.Targets = append(p.Targets, review.Target{ID: id, Version: s.seenVersion(ss, id)})
	}
	if in.Steps != nil {
		p.Evidence.Steps = []review.StepRange{*in.Steps}
	}
	if r := in.Record; r != nil {
		rec := &review.Record{Lemma: r.Lemma, Category: review.Category(r.Category),
			Scope:   review.Scope{Env: r.Scope.Env, Tags: r.Scope.Tags, TaskFamily: r.Scope.TaskFamily},
			Trigger: r.Trigger, Steps: r.Steps, Confidence: r.Confidence, Priority: r.Priority, Status: review.Active,
			Provenance: review.Provenance{Trajectory: p.Trajectory, Steps: in.Steps}}
		for _, c := range r.Checks {
			rec.Checks = append(rec.Checks, review.Check{Env: c.Env, Input: c.Input})
		}
		if (p.Op == review.OpUpdate || p.Op == review.OpNarrow) && len(in.Targets) == 1 {
			rec.ID = in.Targets[0]
		}
		p.Record = rec
	}
	return p
}

// proposeError turns the import validator's *review.InputError into one
// sentence naming the field as memory_propose's input spells it.
func proposeError(err error, in ProposeIn) error {
	var ie *app.InputError
	if !errors.As(err, &ie) {
		return fmt.Errorf("the proposal could not be queued: %w", err)
	}
	field, msg := toolField(ie.Field), ie.Msg
	if field == "" && strings.Contains(msg, "longer than") {
		field, msg = longestField(in), "the proposal is "+strings.TrimPrefix(msg, "line is ")+" (a memory is a sentence or two)"
	}
	if field == "" {
		return fmt.Errorf("proposal refused: %s; nothing was queued", msg)
	}
	return fmt.Errorf("proposal refused: field %q: %s; nothing was queued", field, msg)
}

// toolField maps a field path of the proposal format to memory_propose's
// input: targets[0].id → targets[0], evidence.steps[0] → steps,
// trajectory → trajectory_id.
func toolField(f string) string {
	switch {
	case strings.HasPrefix(f, "targets[") && strings.HasSuffix(f, "].id"):
		return strings.TrimSuffix(f, ".id")
	case strings.HasPrefix(f, "evidence.steps"), f == "record.provenance.steps":
		return "steps"
	case f == "trajectory":
		return "trajectory_id"
	}
	return f
}

// longestField names the longest text of a proposal: the one that made it
// too long.
func longestField(in ProposeIn) string {
	best, n := "rationale", len(in.Rationale)
	consider := func(name, v string) {
		if len(v) > n {
			best, n = name, len(v)
		}
	}
	if r := in.Record; r != nil {
		consider("record.lemma", r.Lemma)
		consider("record.trigger", r.Trigger)
		for i, st := range r.Steps {
			consider(fmt.Sprintf("record.steps[%d]", i), st)
		}
		for i, c := range r.Checks {
			consider(fmt.Sprintf("record.checks[%d].input", i), c.Input)
		}
	}
	return best
}

func (s *Server) status(ctx context.Context, req *mcp.CallToolRequest, in StatusIn) (*mcp.CallToolResult, StatusOut, error) {
	out, err := s.statusOf(ctx, principalOf(req.Extra), in.ProposalID)
	return nil, out, err
}

func (s *Server) statusOf(ctx context.Context, who *Principal, id string) (StatusOut, error) {
	if strings.TrimSpace(id) == "" {
		return StatusOut{}, errors.New("field \"proposal_id\": missing proposal id")
	}
	p, d, err := s.bank.ProposalStatus(ctx, id)
	if err == nil && !s.proposalVisible(ctx, who, p) {
		err = review.ErrNotFound
	}
	if errors.Is(err, review.ErrNotFound) {
		return StatusOut{}, fmt.Errorf("field \"proposal_id\": there is no proposal %q", id)
	}
	if err != nil {
		return StatusOut{}, fmt.Errorf("read proposal %s failed: %w", id, err)
	}
	out := StatusOut{Status: string(p.Status)}
	if d != nil {
		out.DecisionID, out.Operator, out.Note, out.DecidedAt = d.ID, d.Operator, d.Note, d.At.Format(time.RFC3339)
		out.RecordIDs = decidedRecords(d)
	}
	return out, nil
}

// decidedRecords lists the records a decision wrote or retired, the
// resulting record first.
func decidedRecords(d *review.Decision) []string {
	var ids []string
	if d.Record != nil && d.Record.ID != "" {
		ids = append(ids, d.Record.ID)
	}
	for _, c := range d.Changes {
		if !contains(ids, c.RecordID) {
			ids = append(ids, c.RecordID)
		}
	}
	return ids
}

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func (s *Server) submit(ctx context.Context, req *mcp.CallToolRequest, in SubmitIn) (*mcp.CallToolResult, SubmitOut, error) {
	var data []byte
	switch v := in.Trajectory.(type) {
	case nil:
		return nil, SubmitOut{}, errors.New("field \"trajectory\": missing trajectory (one run as JSON)")
	case string: // a run sent as JSON text inside a string
		data = []byte(v)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, SubmitOut{}, fmt.Errorf("field \"trajectory\": %w", err)
		}
		data = b
	}
	who := principalOf(req.Extra)
	if err := s.limit.allow(who.Agent(), who.RatePerMin); err != nil {
		return nil, SubmitOut{}, err
	}
	// The name seeds the id of a run that carries none (runID). Another
	// call's run may take that id first only by a 64-bit coincidence; the
	// run then gets another, never a refusal about an id it did not give.
	var t *review.Trajectory
	var err error
	for try := 0; ; try++ {
		name := runID(agentLabel(who, req.Session))
		t, err = s.bank.SubmitTrajectory(ctx, data, name, s.sessionToken(req.Session))
		var ee *review.ExistsError
		if try < 2 && errors.As(err, &ee) && strings.HasPrefix(ee.ID, name) {
			continue
		}
		break
	}
	if err != nil {
		var ie *app.InputError
		if errors.As(err, &ie) {
			ie.File = "trajectory"
			return nil, SubmitOut{}, fmt.Errorf("trajectory refused: %s; nothing was stored", strings.TrimPrefix(ie.Error(), "trajectory: "))
		}
		return nil, SubmitOut{}, fmt.Errorf("trajectory refused: %w; nothing was stored", err)
	}
	s.log.Info("trajectory stored", "trajectory", t.ID, "steps", len(t.Steps), "client", clientName(req.Session))
	return nil, SubmitOut{TrajectoryID: t.ID, Steps: len(t.Steps)}, nil
}

// idSafe keeps the characters an id may hold.
func idSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '-'
	}, s)
}
