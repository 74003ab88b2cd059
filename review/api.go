package review

import (
	"errors"
	"fmt"
	"time"

	"github.com/memreview/memreview/probe"
)

// ErrNotFound is returned (wrapped) when an id names nothing in the bank.
var ErrNotFound = errors.New("not found")

// Config is the bank's memreview.toml.
type Config struct {
	Envs      []probe.Env     `toml:"env,omitempty"`
	Curator   CuratorConfig   `toml:"curator"`
	Hygiene   HygieneConfig   `toml:"hygiene"`
	Eval      EvalConfig      `toml:"eval"`
	Telemetry TelemetryConfig `toml:"telemetry,omitempty"`
	Screen    ScreenConfig    `toml:"screen,omitempty"`
	OAuth     OAuthConfig     `toml:"oauth,omitempty"`
	// Embeddings and Retrieval: see embeddings.go.
	Embeddings EmbeddingsConfig `toml:"embeddings,omitempty"`
	Retrieval  RetrievalConfig  `toml:"retrieval,omitempty"`
}

// TelemetryConfig holds memreview.toml [telemetry]: where OpenTelemetry
// spans go when OTEL_EXPORTER_OTLP_ENDPOINT does not say (review/app/telemetry).
type TelemetryConfig struct {
	// Endpoint is an OTLP/HTTP base URL ("http://localhost:4318"); "" is off.
	Endpoint string `toml:"endpoint,omitempty"`
	// CaptureContent adds the query and record text to spans (opt-in).
	CaptureContent bool `toml:"capture_content,omitempty"`
}

// HygieneConfig holds memreview.toml [hygiene].
type HygieneConfig struct {
	// MaxUnusedDays: an active record no task retrieved in this many days
	// of the bank's activity is proposed for deletion (0 = DefaultMaxUnusedDays).
	MaxUnusedDays int `toml:"max_unused_days,omitempty"`
	// MemoryLimitMB is the soft memory limit (MiB) a hygiene run holds the
	// process to while it runs (runtime/debug.SetMemoryLimit), so the
	// garbage collector works harder instead of letting the heap grow to
	// twice what the run holds live: 0 = DefaultHygieneMemoryLimitMB, -1 =
	// none (GOGC alone). GOMEMLIMIT in the environment always wins.
	MemoryLimitMB int `toml:"memory_limit_mb,omitempty"`
}

// DefaultHygieneMemoryLimitMB is [hygiene] memory_limit_mb when it is not
// set: a full run at a million records holds about 1.6 GB live.
const DefaultHygieneMemoryLimitMB = 1800

// MemoryLimit returns memory_limit_mb in bytes, or 0 for none.
func (h HygieneConfig) MemoryLimit() int64 {
	switch {
	case h.MemoryLimitMB < 0:
		return 0
	case h.MemoryLimitMB == 0:
		return DefaultHygieneMemoryLimitMB << 20
	}
	return int64(h.MemoryLimitMB) << 20
}

// DefaultMaxUnusedDays is [hygiene] max_unused_days when it is not set.
const DefaultMaxUnusedDays = 90

// UnusedDays returns max_unused_days, or its default.
func (h HygieneConfig) UnusedDays() int {
	if h.MaxUnusedDays > 0 {
		return h.MaxUnusedDays
	}
	return DefaultMaxUnusedDays
}

// CuratorConfig holds curator defaults from memreview.toml [curator].
type CuratorConfig struct {
	Model    string `toml:"model,omitempty"`
	BaseURL  string `toml:"base_url,omitempty"`
	Timeout  string `toml:"timeout,omitempty"`  // Go duration, per run
	MaxSteps int    `toml:"max_steps,omitzero"` // tool-loop steps
}

// Env returns the environment with that name.
func (c Config) Env(name string) (probe.Env, bool) {
	for _, e := range c.Envs {
		if e.Name == name {
			return e, true
		}
	}
	return probe.Env{}, false
}

// Change is one entry of the bank's change feed, which the index follows.
type Change struct {
	Seq  int64
	Kind string // "record", "proposal", "trajectory"
	ID   string
}

// ConflictError says a proposal cannot be decided as asked: a target record
// changed since the proposal was made, or the proposal was already decided.
type ConflictError struct {
	Proposal string
	Record   string // the target that changed; "" when the proposal itself was decided
	Seen     int    // version the proposal saw
	Now      int    // version in the bank now
	By       string // who wrote the newer version
	Op       string // what the newer version did
	Reason   string
	At       time.Time
	Status   ProposalStatus // set when the proposal was already decided
	Read     bool           // Seen is the version the operator read (merge With, bank browser), not a target's
	Undo     string         // set when undoing this decision: Seen is the version it wrote
	Decision string         // the decision that wrote the newer version, when one did
}

func (e *ConflictError) Error() string {
	if e.Record == "" {
		return fmt.Sprintf("conflict: proposal %s was already decided (%s)", e.Proposal, e.Status)
	}
	if e.Undo != "" {
		then := "undo the later change first"
		if e.Decision != "" {
			then = "undo " + e.Decision + " first"
		}
		return fmt.Sprintf("conflict: cannot undo %s: record %s changed after it: it wrote version %d, the bank has version %d (%s by %s at %s%s); %s",
			e.Undo, e.Record, e.Seen, e.Now, e.Op, e.By, e.At.Format(time.RFC3339), reasonSuffix(e.Reason), then)
	}
	if e.Read {
		return fmt.Sprintf("conflict: record %s changed since it was read: the operator saw version %d, the bank has version %d (%s by %s at %s%s); look at it again",
			e.Record, e.Seen, e.Now, e.Op, e.By, e.At.Format(time.RFC3339), reasonSuffix(e.Reason))
	}
	return fmt.Sprintf("conflict: record %s changed since proposal %s was made: it saw version %d, the bank has version %d (%s by %s at %s%s)",
		e.Record, e.Proposal, e.Seen, e.Now, e.Op, e.By, e.At.Format(time.RFC3339), reasonSuffix(e.Reason))
}

func reasonSuffix(r string) string {
	if r == "" {
		return ""
	}
	return ": " + r
}

// DecideRequest is an operator's decision on a proposal.
//   - Accept applies the proposal as made.
//   - Narrow and Edit apply Record (the operator's changed version of the
//     proposed record; Narrow is meant for scope/trigger/lemma only).
//   - Merge folds the proposal's record (or Record when set) and the records
//     in With into one new record; the sources are retired and linked both ways.
//   - Delete retires the proposal's targets.
//   - Reject and Defer change no record.
type DecideRequest struct {
	Proposal string
	Verb     Verb
	Record   *Record  // narrow, edit, merge: the final record (nil: the proposal's)
	With     []string // merge: record ids to fold in
	// Seen holds the versions the operator read of records in With (id →
	// version); one that changed since is a *ConflictError. Ids not in Seen
	// are folded in as they are now.
	Seen     map[string]int
	Operator string
	Note     string
	Evidence []string // probe run ids the operator relied on
	// AckFindings: the operator saw the screen's findings and applies the
	// proposal anyway (a flagged proposal is refused without it).
	AckFindings bool
}

// RecordRequest is an operator's change to records outside any proposal
// (the bank browser's verbs): Edit/Narrow write Record as a new version of
// Record.ID; Delete retires IDs; Merge folds IDs into Record (new id when empty).
//
// The operator decided on what they read: Record.Version (when not 0) is the
// version Edit/Narrow change, and, for Merge, the version of Record.ID when
// it is one of IDs; Seen holds the versions read of the other IDs. A record
// changed since is a *ConflictError and nothing is written.
type RecordRequest struct {
	Verb     Verb
	IDs      []string
	Seen     map[string]int // id → version the operator read (0 or absent: not checked)
	Record   *Record
	Operator string
	Note     string
	// Baselines are the checks of Record whose expected result the
	// caller took from a live run just now (the service does, for every
	// check saved without one); the decision lists them.
	Baselines []Baseline
}

// CheckResult is the last verify outcome of one check of a record.
type CheckResult struct {
	RecordID string        `json:"record_id"`
	Version  int           `json:"version,omitempty"` // the record version checked; 0: any
	Index    int           `json:"index"`
	Env      string        `json:"env"`
	Input    string        `json:"input"`
	Verdict  probe.Verdict `json:"verdict"`
	Now      probe.Result  `json:"now"`
	At       time.Time     `json:"at"`
}

// RecordFilter selects records; zero value selects all.
type RecordFilter struct {
	Status Status // "" = any
	Env    string
}

// TrajectoryUse is a trajectory that retrieved a record and how it ended.
type TrajectoryUse struct {
	Trajectory string
	Task       string
	Outcome    Outcome
}
