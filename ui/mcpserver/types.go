package mcpserver

// The tools' typed inputs and outputs. The SDK generates each tool's JSON
// schemas from these structs: json tags name the fields (omitempty marks
// the optional ones) and jsonschema tags are the descriptions an LLM reads.

import (
	"github.com/memreview/memreview/review"
)

// Tool names, exactly as agents call them.
const (
	ToolSearch  = "memory_search"
	ToolRead    = "memory_read"
	ToolPropose = "memory_propose"
	ToolStatus  = "proposal_status"
	ToolSubmit  = "trajectory_submit"
)

// DefaultK and MaxK bound memory_search's k.
const (
	DefaultK = 5
	MaxK     = 50
)

// SearchIn is memory_search's input.
type SearchIn struct {
	Query  string   `json:"query" jsonschema:"the task you are about to work on, in plain words (or Bleve query-string syntax); records are ranked by how well they match it"`
	Env    string   `json:"env,omitempty" jsonschema:"the environment the task runs in (a database or folder name); only records for it or for any environment are returned"`
	Tags   []string `json:"tags,omitempty" jsonschema:"the task's tags; only records with one of these tags or with no tags are returned"`
	K      int      `json:"k,omitempty" jsonschema:"how many records to return: 1 to 50, default 5"`
	TaskID string   `json:"task_id,omitempty" jsonschema:"an id for the task you work on; use the same id as the trajectory you submit later so the bank knows which records this task used"`
	Select bool     `json:"select,omitempty" jsonschema:"let the bank's chat model read the task first and choose the filters, categories and query (falls back to plain search when it cannot)"`
	Format string   `json:"format,omitempty" jsonschema:"records (the default) or guidelines: the records also rendered as a prompt section to put after your task context"`
}

// SearchHit is one record memory_search returns.
type SearchHit struct {
	ID         string       `json:"id" jsonschema:"the record id, for memory_read and memory_propose targets"`
	Lemma      string       `json:"lemma" jsonschema:"the lesson itself"`
	Category   string       `json:"category" jsonschema:"fact, procedure, relation, convention, warning, strategy, recovery or optimisation"`
	Scope      review.Scope `json:"scope" jsonschema:"where the record applies"`
	Trigger    string       `json:"trigger,omitempty" jsonschema:"when the record applies"`
	Steps      []string     `json:"steps,omitempty" jsonschema:"what to do, in order"`
	Confidence float64      `json:"confidence" jsonschema:"how sure the bank is, 0 to 1"`
	Priority   int          `json:"priority,omitempty"`
	Version    int          `json:"version" jsonschema:"the record version you saw"`
	Score      float64      `json:"score" jsonschema:"retrieval score, higher is better"`
}

// SearchOut is memory_search's result.
type SearchOut struct {
	Records []SearchHit `json:"records" jsonschema:"the records, best first (empty when none apply)"`
	// Guidelines is the records as a prompt section (format guidelines).
	Guidelines string `json:"guidelines,omitempty" jsonschema:"with format guidelines: the records as a prompt section (priority, category, content, purpose, trigger, steps, id)"`
	// Notes say what the search fell back to and why.
	Notes []string `json:"notes,omitempty" jsonschema:"what the search fell back to and why (no vectors yet, selection unavailable)"`
}

// ReadIn is memory_read's input.
type ReadIn struct {
	ID string `json:"id" jsonschema:"the record id, such as mem_0042"`
}

// CheckOut is one check a record carries: a read-only probe and what it
// must reproduce.
type CheckOut struct {
	Env     string   `json:"env"`
	Input   string   `json:"input" jsonschema:"the probe (an SQL query or a files command)"`
	Columns []string `json:"columns,omitempty"`
	Rows    [][]any  `json:"rows,omitempty"`
	Text    string   `json:"text,omitempty"`
}

// RecordOut is memory_read's result: a record's current version.
type RecordOut struct {
	ID         string            `json:"id"`
	Lemma      string            `json:"lemma"`
	Category   string            `json:"category"`
	Scope      review.Scope      `json:"scope"`
	Trigger    string            `json:"trigger,omitempty"`
	Steps      []string          `json:"steps,omitempty"`
	Checks     []CheckOut        `json:"checks,omitempty" jsonschema:"probes the record's claim must survive"`
	Confidence float64           `json:"confidence"`
	Priority   int               `json:"priority,omitempty"`
	Provenance review.Provenance `json:"provenance" jsonschema:"the trajectory, steps and probe runs the record came from, and what it was merged from or into"`
	Status     string            `json:"status" jsonschema:"active or retired (retired records are not retrieved)"`
	Version    int               `json:"version" jsonschema:"the current version; a proposal remembers the version you read"`
	Updated    string            `json:"updated,omitempty" jsonschema:"when this version was written (RFC 3339)"`
	Suspect    bool              `json:"suspect,omitempty" jsonschema:"true when a check failed at the last verify"`
}

// ScopeIn is where a proposed record applies.
type ScopeIn struct {
	Env        string   `json:"env,omitempty" jsonschema:"the environment (database or folder name); empty: any"`
	Tags       []string `json:"tags,omitempty" jsonschema:"tags narrowing where it applies (tables, tools, topics)"`
	TaskFamily string   `json:"task_family,omitempty" jsonschema:"the kind of task it is for"`
}

// CheckIn is a probe a proposed record should carry.
type CheckIn struct {
	Env   string `json:"env" jsonschema:"the environment to probe"`
	Input string `json:"input" jsonschema:"a read-only probe: an SQL SELECT, or ls/read/grep for a folder"`
}

// RecordIn is the record a proposal would write.
type RecordIn struct {
	Lemma      string    `json:"lemma" jsonschema:"one or two sentences stating the lesson"`
	Category   string    `json:"category" jsonschema:"one of fact, procedure, relation, convention, warning, strategy, recovery, optimisation"`
	Scope      ScopeIn   `json:"scope,omitempty"`
	Trigger    string    `json:"trigger,omitempty" jsonschema:"when the lesson applies"`
	Steps      []string  `json:"steps,omitempty" jsonschema:"short imperative steps, in order"`
	Confidence float64   `json:"confidence" jsonschema:"how sure you are, 0 to 1"`
	Priority   int       `json:"priority,omitempty"`
	Checks     []CheckIn `json:"checks,omitempty"`
}

// ProposeIn is memory_propose's input.
type ProposeIn struct {
	Op           string            `json:"op" jsonschema:"create (a new record), update (replace one target), narrow (restrict one target's scope or trigger), merge (fold the targets into the given record), delete (retire the targets) or skip (record that nothing should change)"`
	Targets      []string          `json:"targets,omitempty" jsonschema:"ids of the records the change touches: one for update and narrow, one or more for merge and delete, none for create"`
	Record       *RecordIn         `json:"record,omitempty" jsonschema:"the record as it should be; needed for create, update, narrow and merge"`
	Rationale    string            `json:"rationale" jsonschema:"why, citing what you observed"`
	TrajectoryID string            `json:"trajectory_id,omitempty" jsonschema:"the trajectory the lesson comes from (from trajectory_submit)"`
	Steps        *review.StepRange `json:"steps,omitempty" jsonschema:"the steps of that trajectory that show it (1-based, inclusive)"`
}

// ProposeOut is memory_propose's result.
type ProposeOut struct {
	ProposalID string `json:"proposal_id" jsonschema:"poll it with proposal_status"`
	Status     string `json:"status" jsonschema:"always pending: a person reviews every proposal"`
}

// StatusIn is proposal_status's input.
type StatusIn struct {
	ProposalID string `json:"proposal_id"`
}

// StatusOut is proposal_status's result.
type StatusOut struct {
	Status     string   `json:"status" jsonschema:"pending, accepted, narrowed, merged, edited, rejected, deleted or deferred"`
	DecisionID string   `json:"decision_id,omitempty"`
	RecordIDs  []string `json:"record_ids,omitempty" jsonschema:"the records the decision wrote or retired, the resulting record first"`
	Operator   string   `json:"operator,omitempty" jsonschema:"who decided"`
	Note       string   `json:"note,omitempty" jsonschema:"the operator's note"`
	DecidedAt  string   `json:"decided_at,omitempty" jsonschema:"when (RFC 3339)"`
}

// SubmitIn is trajectory_submit's input.
type SubmitIn struct {
	Trajectory any `json:"trajectory" jsonschema:"one finished run as JSON, in any shape 'memreview import trajectories' accepts: memreview's own {id, task, steps, outcome}, or OpenAI chat messages (an array, or an object with messages and optional id, task, reward)"`
}

// SubmitOut is trajectory_submit's result.
type SubmitOut struct {
	TrajectoryID string `json:"trajectory_id" jsonschema:"cite it as memory_propose's trajectory_id"`
	Steps        int    `json:"steps" jsonschema:"how many steps it has; memory_propose steps are 1..steps"`
}
