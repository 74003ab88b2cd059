// Package review is memreview's domain: records, proposals, decisions,
// trajectories, probe runs and checks, and the rules about them — the
// categories and ops, limits and validation (field and message; a reader
// adds the file and line), versions, combining records into one, live
// runs as baselines, verification verdicts and worth.
//
// It holds no SQL and reads no files: the SQLite store (review/store), the
// PostgreSQL store (review/store/pg), the formats (review/formats) and the
// application service (review/app) build on it. It may import only the
// probe layer below it and the leaf review/printable.
package review

import (
	"reflect"
	"time"

	"github.com/memreview/memreview/probe"
)

// Category says what kind of knowledge a record holds.
type Category string

// The record categories.
const (
	Fact         Category = "fact"
	Procedure    Category = "procedure"
	Relation     Category = "relation"
	Convention   Category = "convention"
	Warning      Category = "warning"
	Strategy     Category = "strategy"
	Recovery     Category = "recovery"
	Optimisation Category = "optimisation"
)

// Categories lists every valid category in display order.
var Categories = []Category{Fact, Procedure, Relation, Convention, Warning, Strategy, Recovery, Optimisation}

// Valid reports whether c is a known category.
func (c Category) Valid() bool {
	for _, k := range Categories {
		if c == k {
			return true
		}
	}
	return false
}

// Status is a record's lifecycle state.
type Status string

// Record states.
const (
	Active  Status = "active"
	Retired Status = "retired"
)

// Op is what a proposal asks for.
type Op string

// The proposal ops.
const (
	OpCreate Op = "create"
	OpUpdate Op = "update"
	OpNarrow Op = "narrow"
	OpMerge  Op = "merge"
	OpDelete Op = "delete"
	OpSkip   Op = "skip"
)

// Ops lists every valid op.
var Ops = []Op{OpCreate, OpUpdate, OpNarrow, OpMerge, OpDelete, OpSkip}

// Valid reports whether o is a known op.
func (o Op) Valid() bool {
	for _, k := range Ops {
		if o == k {
			return true
		}
	}
	return false
}

// Verb is what an operator decides about a proposal.
type Verb string

// The operator's verbs.
const (
	Accept Verb = "accept"
	Narrow Verb = "narrow"
	Merge  Verb = "merge"
	Delete Verb = "delete"
	Reject Verb = "reject"
	Edit   Verb = "edit"
	Defer  Verb = "defer"
	Undo   Verb = "undo"
)

// ProposalStatus is where a proposal stands in the queue.
type ProposalStatus string

// Proposal states. Pending and Deferred proposals are open; the others
// name the verb that closed them.
const (
	Pending  ProposalStatus = "pending"
	Deferred ProposalStatus = "deferred"
	Accepted ProposalStatus = "accepted"
	Narrowed ProposalStatus = "narrowed"
	Merged   ProposalStatus = "merged"
	Deleted  ProposalStatus = "deleted"
	Rejected ProposalStatus = "rejected"
	Edited   ProposalStatus = "edited"
)

// Open reports whether the proposal still awaits a decision.
func (s ProposalStatus) Open() bool { return s == Pending || s == Deferred }

// Scope says where a record applies.
type Scope struct {
	Env        string   `json:"env,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	TaskFamily string   `json:"task_family,omitempty"`
}

// StepRange is an inclusive range of 1-based trajectory step numbers.
type StepRange struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// Contains reports whether step n lies in the range.
func (r StepRange) Contains(n int) bool { return n >= r.From && n <= r.To }

// Provenance says where a record came from.
type Provenance struct {
	Trajectory string     `json:"trajectory,omitempty"`
	Steps      *StepRange `json:"steps,omitempty"`
	ProbeRuns  []string   `json:"probe_runs,omitempty"`
	MergedFrom []string   `json:"merged_from,omitempty"`
	MergedInto string     `json:"merged_into,omitempty"`
	// Source names the existing memory bank an imported record came from.
	Source *Source `json:"source,omitempty"`
}

// Source is where an imported memory came from: the bank's format, the
// file, the id it had there, whose memory it was and its own timestamps
// (RFC 3339 when they could be read, else as written).
type Source struct {
	Format  string `json:"format"`
	File    string `json:"file"`
	ID      string `json:"id,omitempty"`
	User    string `json:"user,omitempty"`
	Agent   string `json:"agent,omitempty"`
	Label   string `json:"label,omitempty"`
	Created string `json:"created,omitempty"`
	Updated string `json:"updated,omitempty"`
	Expires string `json:"expires,omitempty"`
}

// Check is a probe a record carries and the output it must reproduce.
type Check struct {
	Env   string `json:"env"`
	Input string `json:"input"`
	// Expect is the check's baseline: the result it must reproduce; zero
	// (and left out of the JSON) until one is taken.
	Expect probe.Result `json:"expect,omitzero"`
}

// HasBaseline reports whether c has an expected result to compare with:
// a check added or edited without being run has none.
// (It is the zero test of the JSON's omitzero.)
func (c Check) HasBaseline() bool { return !reflect.ValueOf(c.Expect).IsZero() }

// Record is one memory: a concise statement plus what makes it usable and
// checkable.
type Record struct {
	ID              string     `json:"id"`
	Lemma           string     `json:"lemma"`
	Category        Category   `json:"category"`
	Scope           Scope      `json:"scope"`
	Trigger         string     `json:"trigger,omitempty"`
	Steps           []string   `json:"steps,omitempty"`
	Confidence      float64    `json:"confidence"`
	Priority        int        `json:"priority,omitempty"`
	Provenance      Provenance `json:"provenance"`
	Checks          []Check    `json:"checks,omitempty"`
	Status          Status     `json:"status"`
	Version         int        `json:"version"`
	Created         time.Time  `json:"created"`
	Updated         time.Time  `json:"updated"`
	VerifiedAgainst string     `json:"verified_against,omitempty"`
	// Suspect is derived, not stored with the record: set when the last
	// verify found a check that no longer holds.
	Suspect bool `json:"suspect,omitempty"`
}

// Target is a record a proposal touches and the version it saw.
type Target struct {
	ID      string `json:"id"`
	Version int    `json:"version"`
}

// Evidence is what a proposal rests on.
type Evidence struct {
	Steps     []StepRange `json:"steps,omitempty"`
	ProbeRuns []string    `json:"probe_runs,omitempty"`
}

// Proposal is a change the curator asks for.
type Proposal struct {
	ID         string   `json:"id"`
	Op         Op       `json:"op"`
	Targets    []Target `json:"targets,omitempty"`
	Record     *Record  `json:"record,omitempty"`
	Rationale  string   `json:"rationale"`
	Evidence   Evidence `json:"evidence"`
	Trajectory string   `json:"trajectory,omitempty"`
	CuratorRun string   `json:"curator_run,omitempty"`
	// Source names what made the proposal when it was not a curator run
	// over a trajectory: "hygiene" for the bank's own upkeep.
	Source string `json:"source,omitempty"`
	// Fingerprint keys a finding (a duplicate cluster, a record gone
	// stale): a source does not queue a second proposal with the same
	// fingerprint while the first is open.
	Fingerprint string         `json:"fingerprint,omitempty"`
	Status      ProposalStatus `json:"status"`
	Created     time.Time      `json:"created"`
	// Screen is what the poisoning screen found in the proposal when it
	// was queued (nil: not screened, as proposals queued before it).
	Screen *Screening `json:"screen,omitempty"`
}

// TargetIDs returns the ids of the proposal's targets.
func (p *Proposal) TargetIDs() []string {
	ids := make([]string, len(p.Targets))
	for i, t := range p.Targets {
		ids[i] = t.ID
	}
	return ids
}

// RecordChange is one record a decision changed: the version before (0 when
// the decision created it) and the version it wrote.
type RecordChange struct {
	RecordID string  `json:"record_id"`
	Before   int     `json:"before"`
	After    int     `json:"after"`
	BeforeR  *Record `json:"before_record,omitempty"`
	AfterR   *Record `json:"after_record,omitempty"`
}

// Decision is the operator's verdict on a proposal, with everything it
// changed. It is also the audit entry.
type Decision struct {
	ID       string         `json:"id"`
	Proposal string         `json:"proposal"`
	Verb     Verb           `json:"verb"`
	Record   *Record        `json:"record,omitempty"`
	Changes  []RecordChange `json:"changes,omitempty"`
	Operator string         `json:"operator"`
	Note     string         `json:"note,omitempty"`
	At       time.Time      `json:"at"`
	Evidence []string       `json:"evidence,omitempty"`
	Undoes   string         `json:"undoes,omitempty"`
	UndoneBy string         `json:"undone_by,omitempty"`
	// PrevStatus is the proposal's status before this decision, restored on undo.
	PrevStatus ProposalStatus `json:"prev_status,omitempty"`
	// Baselines are the checks of Record whose expected result this
	// decision took from the proposal's latest live runs (review/live.go).
	Baselines []Baseline `json:"baselines,omitempty"`
	// NoBaseline lists the 1-based checks of Record that still have no
	// expected result after it (a new check that failed when run at save).
	NoBaseline []int `json:"no_baseline,omitempty"`
}

// Version is one stored version of a record, with who wrote it and why.
type Version struct {
	Record   Record    `json:"record"`
	Op       string    `json:"op"`
	Actor    string    `json:"actor"`
	Reason   string    `json:"reason,omitempty"`
	Decision string    `json:"decision,omitempty"`
	At       time.Time `json:"at"`
}

// ToolCall is one tool call an assistant step made, with the result the
// matching tool message returned.
type ToolCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Result    string `json:"result,omitempty"`
}

// Step is one message of a trajectory. Steps are numbered from 1.
type Step struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
}

// Outcome is how a task ended, as far as its run says. Kind says what the
// run gave: the zero Kind is a reward (Passed and Reward as given: every
// outcome written before Kind existed reads so); OutcomeUnknown a run
// that carries no outcome (Passed and Reward are zero and say nothing);
// OutcomeValue an outcome that is not a reward, held in Value as the run
// wrote it (an Inspect score "C", SWE-agent's exit status "submitted",
// OpenHands' final state "finished"), with Passed true only where the
// producer itself counts the value a pass (Inspect's C) and Reward the
// number it gives the value, where it gives one (else 0).
type Outcome struct {
	Passed bool        `json:"passed"`
	Reward float64     `json:"reward"`
	Notes  string      `json:"notes,omitempty"`
	Kind   OutcomeKind `json:"kind,omitempty"`
	Value  string      `json:"value,omitempty"`
}

// OutcomeKind is what kind of outcome a run carries ("" for a reward).
type OutcomeKind string

// The outcome kinds besides a reward.
const (
	OutcomeUnknown OutcomeKind = "unknown"
	OutcomeValue   OutcomeKind = "value"
)

// Rewarded reports whether the outcome is a reward, so that Passed false
// means the run failed. A run with an unknown outcome did not fail, and a
// value outcome says how it ended in Value.
func (o Outcome) Rewarded() bool { return o.Kind == "" }

// Observation is a decisive observation of a distilled trajectory.
type Observation struct {
	Steps StepRange `json:"steps"`
	Text  string    `json:"text"`
}

// Packet is a distilled trajectory: what a curator needs and nothing more.
type Packet struct {
	Task         string        `json:"task"`
	Retrieved    []string      `json:"retrieved,omitempty"`
	Observations []Observation `json:"observations,omitempty"`
	Procedures   []string      `json:"procedures,omitempty"`
	Assumptions  []string      `json:"assumptions,omitempty"`
	Answer       string        `json:"answer,omitempty"`
}

// Trajectory is one finished task run.
type Trajectory struct {
	ID        string    `json:"id"`
	Env       string    `json:"env,omitempty"`
	Task      string    `json:"task"`
	Model     string    `json:"model,omitempty"`  // the model that ran it, when the format says
	Format    string    `json:"format,omitempty"` // the format it was imported from
	Steps     []Step    `json:"steps"`
	Outcome   Outcome   `json:"outcome"`
	Retrieved []string  `json:"retrieved,omitempty"`
	Started   time.Time `json:"started,omitempty"`
	Ended     time.Time `json:"ended,omitempty"`
	Distilled *Packet   `json:"distilled,omitempty"`
}

// ProbeRun is a stored probe run: evidence for proposals and records.
type ProbeRun struct {
	ID     string       `json:"id"`
	Result probe.Result `json:"result"`
	At     time.Time    `json:"at"`
	Actor  string       `json:"actor,omitempty"`
	// Repeats marks a live re-run a person started (review/live.go): the
	// id of the proposal's probe run it ran again, or RepeatsCheck for a
	// check of the proposal's record. "" for evidence.
	Repeats string `json:"repeats,omitempty"`
}
