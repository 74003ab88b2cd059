package curator

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

// Searcher finds records for memory_search (the service passes its search
// of the bank's index); a nil Searcher falls back to a plain scan of active
// records.
type Searcher interface {
	SearchRecords(query string, k int) ([]string, error)
}

// Store is what a curator run reads and writes of a bank: its settings,
// records and trajectories to read, and proposals (with the probe runs
// they cite) and distilled packets to write. The application service
// passes its bank's store; tests pass a bank of their own.
type Store interface {
	Config() (review.Config, error)
	Record(id string) (*review.Record, error)
	Records(f review.RecordFilter) ([]review.Record, error)
	Trajectory(id string) (*review.Trajectory, error)
	AddProposals(ps []review.Proposal, runs []review.ProbeRun) error
	PutTrajectories(trs []review.Trajectory) error
	Now() time.Time
}

// Deps is what a curator run talks to.
type Deps struct {
	Store Store
	// ResolveEnv finds an environment by name with its path made absolute;
	// nil: Store's own ResolveEnv when it has one (the SQLite store does).
	ResolveEnv func(name string) (probe.Env, error)
	Search     Searcher // nil: scan the bank's active records
	LLM        LLM
	// Probe runs one probe (the service passes its probe.Runner's Run);
	// nil: a probe.Runner of the run's own, closed when it ends. Tests may
	// count calls with it.
	Probe func(ctx context.Context, env probe.Env, input string, lim probe.Limits) probe.Result
	// Describe describes an environment to the model: kind, target, probe
	// grammar, and for mcp the callable tools with their input schemas
	// (the service passes its runner's Describe); nil: the run's own
	// runner's.
	Describe func(ctx context.Context, env probe.Env) probe.Description
	// Screen, when set, screens each proposal a propose_* call makes
	// before the run keeps it (the service's poisoning screen): it sets
	// p.Screen and may redact p; an error refuses the call, and the model
	// reads it (it names the field and the kind, never the text).
	Screen func(p *review.Proposal) error
}

// Options tune one Curate call.
type Options struct {
	// Probe declares the read-only probe tools (one set per environment
	// kind in memreview.toml); Settings.Probe turns them on too.
	Probe       bool
	ProbeLimits probe.Limits // zero: probe.DefaultLimits()
	DryRun      bool         // run and return proposals, but save nothing
	Redistill   bool         // distil again even when a packet is stored
	RunID       string       // "": generated ("cur_<time>_<hex>")
	MaxBadCalls int          // consecutive bad tool calls that end the run; 0: 3
	OnEvent     func(Event)  // called for each step of the run, in order
}

// Event kinds passed to Options.OnEvent.
const (
	EventDistill = "distill" // a trajectory was distilled (Tool empty, Result the task)
	EventCall    = "call"    // the model called Tool with Args
	EventResult  = "result"  // the call finished: Result, or Err for a bad call
	EventText    = "text"    // the model answered in plain text (Result)
	EventError   = "error"   // the run ended with Err
)

// Event is one live step of a run, for progress display.
type Event struct {
	Kind       string
	Trajectory string
	Tool       string
	Args       string
	Result     string
	Err        error
}

// ToolCallLog is one tool call of a run as it happened.
type ToolCallLog struct {
	Trajectory string
	Step       int
	ID         string
	Name       string
	Args       string
	Result     string
	Err        string // why the call was refused; "" when it ran
	Duration   time.Duration
}

// Run is what one Curate call did. Proposals and ProbeRuns are saved to the
// bank together at the end of a successful run (unless DryRun); on failure
// the Run is still returned, for display, and nothing is saved.
type Run struct {
	ID               string
	Model            string
	Operator         string
	Trajectories     []string
	Proposals        []review.Proposal
	ProbeRuns        []review.ProbeRun
	Steps            int // model turns, all trajectories together
	PromptTokens     int
	CompletionTokens int
	Latency          time.Duration // time spent waiting for the model
	Elapsed          time.Duration // wall time of the whole run
	ToolCalls        []ToolCallLog
	BadCalls         int // tool calls refused and sent back for correction
}

// curation is the state of one Curate call.
type curation struct {
	deps  Deps
	opt   Options
	s     Settings
	cfg   review.Config
	envs  []probe.Description // the environments as the model is told of them
	run   *Run
	tools []openai.Tool
	names []string // declared tool names
	// per trajectory
	traj     *review.Trajectory
	probes   []string // probe run ids of this trajectory's session
	proposed int
}

// Curate distils each trajectory (unless it has a packet and not
// opt.Redistill) and runs the tool-calling loop over it, one conversation
// per trajectory. Proposals carry the probe runs their probe_runs argument
// names, or, when it is empty, every probe run of that trajectory's
// session. Everything is saved at the end in one AddProposals call, plus
// new packets via PutTrajectories; a failed run saves nothing.
func Curate(ctx context.Context, deps Deps, trajIDs []string, opt Options) (*Run, error) {
	start := time.Now()
	if deps.Store == nil {
		return nil, errors.New("curator: no bank is open")
	}
	s := deps.LLM.Settings.withDefaults()
	deps.LLM.Settings = s
	if deps.LLM.Client == nil {
		deps.LLM.Client = NewClient(s)
	}
	if deps.Probe == nil || deps.Describe == nil {
		own := probe.NewRunner()
		defer own.Close()
		if deps.Probe == nil {
			deps.Probe = own.Run
		}
		if deps.Describe == nil {
			deps.Describe = own.Describe
		}
	}
	if opt.MaxBadCalls <= 0 {
		opt.MaxBadCalls = 3
	}
	if opt.RunID == "" {
		opt.RunID = NewRunID(deps.Store.Now())
	}
	c := &curation{deps: deps, opt: opt, s: s, run: &Run{ID: opt.RunID, Model: s.Model, Operator: s.Operator}}
	err := c.curate(ctx, trajIDs)
	c.run.Elapsed = time.Since(start)
	if err != nil {
		c.emit(Event{Kind: EventError, Err: err})
		return c.run, err
	}
	return c.run, nil
}

func (c *curation) curate(ctx context.Context, trajIDs []string) error {
	ctx, cancel := context.WithTimeout(ctx, c.s.RunTimeout)
	defer cancel()
	if len(trajIDs) == 0 {
		return errors.New("curator: no trajectory to curate; name at least one trajectory id")
	}
	cfg, err := c.deps.Store.Config()
	if err != nil {
		return fmt.Errorf("curator: cannot read the bank's settings: %w", err)
	}
	c.cfg = cfg
	if c.opt.Probe || c.s.Probe {
		c.describeEnvs(ctx)
	}
	c.tools = declareTools(cfg, c.opt.Probe || c.s.Probe, c.callable())
	for _, t := range c.tools {
		c.names = append(c.names, t.Function.Name)
	}
	var trajs []*review.Trajectory
	for _, id := range trajIDs {
		t, err := c.deps.Store.Trajectory(id)
		if errors.Is(err, review.ErrNotFound) {
			return fmt.Errorf("curator: there is no trajectory %q in the bank; import it first", id)
		}
		if err != nil {
			return fmt.Errorf("curator: cannot read trajectory %s: %w", id, err)
		}
		trajs = append(trajs, t)
	}
	var distilled []review.Trajectory
	for _, t := range trajs {
		c.run.Trajectories = append(c.run.Trajectories, t.ID)
		if t.Distilled == nil || c.opt.Redistill {
			p, usage, took, err := distill(ctx, c.deps.LLM, t)
			c.run.PromptTokens += usage.PromptTokens
			c.run.CompletionTokens += usage.CompletionTokens
			c.run.Latency += took
			if err != nil {
				return err
			}
			t.Distilled = p
			distilled = append(distilled, *t)
			c.emit(Event{Kind: EventDistill, Trajectory: t.ID, Result: p.Task})
		}
		if err := c.converse(ctx, t); err != nil {
			return err
		}
	}
	if c.opt.DryRun {
		return nil
	}
	if err := c.deps.Store.AddProposals(c.run.Proposals, c.run.ProbeRuns); err != nil {
		return fmt.Errorf("curator: saving the run's %d proposals failed, so none were saved: %w", len(c.run.Proposals), err)
	}
	if len(distilled) > 0 {
		if err := c.deps.Store.PutTrajectories(distilled); err != nil {
			return fmt.Errorf("curator: the proposals were saved but the distilled packets were not: %w", err)
		}
	}
	return nil
}

// NewRunID returns a fresh curator run id for a run started at now:
// "cur_<UTC time>_<6 hex digits>".
func NewRunID(now time.Time) string {
	var b [3]byte
	rand.Read(b[:])
	return "cur_" + now.UTC().Format("20060102T150405") + "_" + hex.EncodeToString(b[:])
}

func (c *curation) emit(e Event) {
	if c.opt.OnEvent != nil {
		c.opt.OnEvent(e)
	}
}

const nudge = "Answer only with tool calls. Propose what the evidence supports with the propose_* tools (propose_skip when nothing should change), then call finish."

// converse runs the tool-calling loop over one trajectory.
func (c *curation) converse(ctx context.Context, t *review.Trajectory) error {
	c.traj, c.probes, c.proposed = t, nil, 0
	msgs := []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: prompt("curator")},
		{Role: openai.ChatMessageRoleUser, Content: c.brief(t)},
	}
	nudged, bad := false, 0
	refused := "" // the last tool call refused, and why, while no call has run since
	for step := 1; ; step++ {
		if step > c.s.MaxSteps {
			return fmt.Errorf("curator: the model did not finish curating %s within %d steps; raise max_steps in memreview.toml [curator] or use a more decisive model", t.ID, c.s.MaxSteps)
		}
		during := fmt.Sprintf("curating %s (step %d)", t.ID, step)
		resp, took, err := c.deps.LLM.chat(ctx, openai.ChatCompletionRequest{Messages: msgs, Tools: c.tools}, during)
		c.run.Steps++
		c.run.Latency += took
		c.run.PromptTokens += resp.Usage.PromptTokens
		c.run.CompletionTokens += resp.Usage.CompletionTokens
		if err != nil {
			return err
		}
		if used := c.run.PromptTokens + c.run.CompletionTokens; used > c.s.MaxTokens {
			return fmt.Errorf("curator: the run used %d tokens, over its limit of %d, while %s; raise the token limit or curate fewer trajectories at once", used, c.s.MaxTokens, during)
		}
		msg := resp.Choices[0].Message
		msg.Role = openai.ChatMessageRoleAssistant
		for i := range msg.ToolCalls {
			if msg.ToolCalls[i].Type == "" {
				msg.ToolCalls[i].Type = openai.ToolTypeFunction // some local servers omit it
			}
		}
		msgs = append(msgs, msg)
		if len(msg.ToolCalls) == 0 {
			c.emit(Event{Kind: EventText, Trajectory: t.ID, Result: msg.Content})
			switch {
			case c.proposed > 0:
				return nil
			case nudged && refused != "":
				return fmt.Errorf("curator: the model stopped calling tools after its call %s was refused, and answered in plain text while %s (%q); fix what the refusal names (the trajectory, the environments in memreview.toml) or use a stronger model", refused, during, snippet(msg.Content))
			case nudged:
				return fmt.Errorf("curator: the model answered in plain text instead of calling a tool while %s (%q); use a model that supports tool calls", during, snippet(msg.Content))
			}
			nudged = true
			msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: nudge})
			continue
		}
		finished := false
		for _, tc := range msg.ToolCalls {
			name, args := tc.Function.Name, tc.Function.Arguments
			c.emit(Event{Kind: EventCall, Trajectory: t.ID, Tool: name, Args: args})
			begin := time.Now()
			result, callErr := c.call(ctx, name, args)
			var fatal *fatalError
			if errors.As(callErr, &fatal) {
				return fatal.err
			}
			entry := ToolCallLog{Trajectory: t.ID, Step: step, ID: tc.ID, Name: name, Args: args, Result: result, Duration: time.Since(begin)}
			if callErr != nil {
				bad++
				c.run.BadCalls++
				entry.Err = callErr.Error()
				refused = fmt.Sprintf("%s(%s): %v", name, snippet(args), callErr)
				result = "error: " + callErr.Error() + ". Correct the call and try again."
				entry.Result = result
			} else {
				bad, refused = 0, ""
				finished = finished || name == ToolFinish
			}
			c.run.ToolCalls = append(c.run.ToolCalls, entry)
			c.emit(Event{Kind: EventResult, Trajectory: t.ID, Tool: name, Args: args, Result: result, Err: callErr})
			msgs = append(msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: tc.ID, Content: result})
			if bad >= c.opt.MaxBadCalls {
				return fmt.Errorf("curator: the model made %d bad tool calls in a row while %s, the last %s: %v; use a stronger model", bad, during, name, callErr)
			}
		}
		if finished {
			return nil
		}
	}
}

// brief is the first user message of a trajectory's session: the packet,
// the outcome and what can be probed.
func (c *curation) brief(t *review.Trajectory) string {
	var b strings.Builder
	p := t.Distilled
	fmt.Fprintf(&b, "Trajectory %s (%d steps), environment %q, outcome: %s.\n", t.ID, len(t.Steps), t.Env, t.Outcome.Words())
	fmt.Fprintf(&b, "Task: %s\n", p.Task)
	if len(p.Retrieved) > 0 || len(t.Retrieved) > 0 {
		fmt.Fprintf(&b, "Records retrieved by the task agent: %s\n", strings.Join(append(append([]string{}, t.Retrieved...), missing(t.Retrieved, p.Retrieved)...), ", "))
	}
	for _, o := range p.Observations {
		fmt.Fprintf(&b, "Observation (steps %d-%d): %s\n", o.Steps.From, o.Steps.To, o.Text)
	}
	for _, s := range p.Procedures {
		fmt.Fprintf(&b, "Procedure: %s\n", s)
	}
	for _, s := range p.Assumptions {
		fmt.Fprintf(&b, "Unchecked assumption: %s\n", s)
	}
	if p.Answer != "" {
		fmt.Fprintf(&b, "Answer: %s\n", p.Answer)
	}
	if c.opt.Probe || c.s.Probe {
		b.WriteString(c.envBrief())
	} else {
		b.WriteString("Probing is off in this session: rely on the trajectory and the bank.\n")
	}
	b.WriteString("Search the bank for records this touches, then propose.")
	return b.String()
}

func missing(have, want []string) []string {
	var out []string
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			out = append(out, w)
		}
	}
	return out
}
