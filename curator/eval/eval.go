// Package eval replays a task set with a task agent under conditions of
// memory and says what the memory did: the task agent (any
// OpenAI-compatible chat model with tool calls, through curator.LLM) works
// each task with the task's environment as read-only tools and a budget of
// tool calls; its answer is graded against the task's expected answer or
// grading probe; every task run is appended to a crash-safe log beside the
// bank (runlog.go), so that a killed run resumes with no task run twice
// and none lost; and the statistics (stats.go) and attribution
// (attrib.go) read that log.
//
// It stands on the curator's floor: it imports the curator's LLM client,
// the probe layer, the domain and the formats, never the application
// service. The service gives it what it needs as functions (Deps.Probe,
// the records each condition retrieves, frozen in the Plan).
package eval

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/memreview/memreview/review"
)

// The conditions a task set runs under. Besides these three, "bank@ID" is
// the bank just after decision ID, "bank@before:ID" just before it, and
// "bank@TIME" (RFC 3339, or a date) the bank as it stood at that time.
const (
	CondNone    = "none"         // no memory
	CondBank    = "bank"         // what retrieve gives now
	CondPending = "bank+pending" // the bank as if every open proposal were accepted
)

// DefaultConditions are the conditions of a run that names none.
var DefaultConditions = []string{CondNone, CondBank}

// Condition kinds (Condition.Kind).
const (
	KindNone     = "none"
	KindBank     = "bank"
	KindPending  = "pending"
	KindAfter    = "after"  // bank@DECISION
	KindBefore   = "before" // bank@before:DECISION
	KindTime     = "time"   // bank@TIME
	beforePrefix = "before:"
)

// Condition is one parsed condition.
type Condition struct {
	Name string    // as written: "bank@dec_0003"
	Kind string    // one of the Kind constants
	Ref  string    // the decision id (KindAfter, KindBefore)
	At   time.Time // KindTime
}

// ParseCondition reads one condition.
func ParseCondition(s string) (Condition, error) {
	s = strings.TrimSpace(s)
	c := Condition{Name: s}
	switch {
	case s == CondNone:
		c.Kind = KindNone
	case s == CondBank:
		c.Kind = KindBank
	case s == CondPending:
		c.Kind = KindPending
	case strings.HasPrefix(s, "bank@"):
		ref := strings.TrimPrefix(s, "bank@")
		switch {
		case strings.HasPrefix(ref, beforePrefix) && len(ref) > len(beforePrefix):
			c.Kind, c.Ref = KindBefore, strings.TrimPrefix(ref, beforePrefix)
		case ref == "":
			return c, fmt.Errorf("condition %q: name a decision or a time after bank@", s)
		default:
			if t, ok := parseTime(ref); ok {
				c.Kind, c.At = KindTime, t
			} else {
				c.Kind, c.Ref = KindAfter, ref
			}
		}
	default:
		return c, fmt.Errorf("condition %q: want none, bank, bank+pending, bank@DECISION, bank@before:DECISION or bank@TIME", s)
	}
	return c, nil
}

// parseTime reads an RFC 3339 time or a date (midnight UTC at its end is
// not meant: a date is its start).
func parseTime(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// ParseConditions reads a comma-separated list; duplicates are refused.
func ParseConditions(list string) ([]Condition, error) {
	var out []Condition
	seen := map[string]bool{}
	for _, s := range strings.Split(list, ",") {
		if strings.TrimSpace(s) == "" {
			continue
		}
		c, err := ParseCondition(s)
		if err != nil {
			return nil, err
		}
		if seen[c.Name] {
			return nil, fmt.Errorf("condition %q is named twice", c.Name)
		}
		seen[c.Name] = true
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no condition given (want e.g. none,bank)")
	}
	return out, nil
}

// Status is how one task run ended.
type Status string

// Task run statuses. A task is graded when it passed or failed; an error
// (the model server failed) counts as not passed; an ungradable task (its
// grading probe failed) is left out of the pass rate.
const (
	Passed     Status = "passed"
	Failed     Status = "failed"
	Ungradable Status = "ungradable"
	Errored    Status = "error"
)

// Faults are what went wrong with the model in one task run; a run's
// report sums them per condition.
type Faults struct {
	NoToolCall  bool `json:"no_tool_call,omitempty"`  // the model never called a tool
	Prose       int  `json:"prose,omitempty"`         // answers in prose where a tool call was required
	UnknownTool int  `json:"unknown_tool,omitempty"`  // calls of tools it was not given
	BadArgs     int  `json:"bad_args,omitempty"`      // calls whose arguments did not fit the tool
	OverBudget  bool `json:"over_budget,omitempty"`   // it called more tools than the budget
	Timeout     bool `json:"timeout,omitempty"`       // the model server did not answer in time
	RateLimited bool `json:"rate_limited,omitempty"`  // it answered 429
	ServerError bool `json:"server_error,omitempty"`  // it answered 5xx
	Other       bool `json:"other_failure,omitempty"` // any other failed request
}

// Add sums f into the counts of a report.
func (c *FaultCounts) Add(f Faults) {
	c.NoToolCall += btoi(f.NoToolCall)
	c.Prose += f.Prose
	c.UnknownTool += f.UnknownTool
	c.BadArgs += f.BadArgs
	c.OverBudget += btoi(f.OverBudget)
	c.Timeout += btoi(f.Timeout)
	c.RateLimited += btoi(f.RateLimited)
	c.ServerError += btoi(f.ServerError)
	c.Other += btoi(f.Other)
}

// FaultCounts sums Faults over task runs: how many runs had each fault
// (for the flags) or how many times it happened (prose, unknown tools, bad
// arguments).
type FaultCounts struct {
	NoToolCall  int `json:"no_tool_call"`
	Prose       int `json:"prose"`
	UnknownTool int `json:"unknown_tool"`
	BadArgs     int `json:"bad_args"`
	OverBudget  int `json:"over_budget"`
	Timeout     int `json:"timeout"`
	RateLimited int `json:"rate_limited"`
	ServerError int `json:"server_error"`
	Other       int `json:"other_failure"`
}

// String lists the faults that happened: "2 never called a tool, 1 over
// budget"; "" when none did.
func (c FaultCounts) String() string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(c.NoToolCall, "never called a tool")
	add(c.Prose, "prose instead of a tool call")
	add(c.UnknownTool, "unknown tool")
	add(c.BadArgs, "bad arguments")
	add(c.OverBudget, "over budget")
	add(c.Timeout, "timed out")
	add(c.RateLimited, "rate-limited (429)")
	add(c.ServerError, "server error (5xx)")
	add(c.Other, "other model failure")
	return strings.Join(parts, ", ")
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Call is one tool call of a task run.
type Call struct {
	Name       string  `json:"name"`
	Args       string  `json:"args"`
	Result     string  `json:"result,omitempty"`
	Err        string  `json:"error,omitempty"` // why it was refused
	DurationMS float64 `json:"duration_ms"`
}

// TaskRun is one task run under one condition in one repetition: a line
// of a run's results log.
type TaskRun struct {
	Task      string    `json:"task"`
	Index     int       `json:"index"` // 1-based place in the task sequence
	Condition string    `json:"condition"`
	Rep       int       `json:"run"` // 1..Plan.Runs
	Seed      int       `json:"seed"`
	Status    Status    `json:"status"`
	Answer    string    `json:"answer,omitempty"`
	Answered  bool      `json:"answered,omitempty"`
	Grade     string    `json:"grade,omitempty"` // why it passed, failed or could not be graded
	ToolCalls int       `json:"tool_calls"`      // environment tool calls (the answer is not one)
	Turns     int       `json:"turns"`           // model calls
	Input     int       `json:"input_tokens"`
	Output    int       `json:"output_tokens"`
	Retrieved []string  `json:"retrieved,omitempty"` // records given as guidelines, best first
	Faults    Faults    `json:"faults"`
	Error     string    `json:"error,omitempty"`
	Model     string    `json:"model,omitempty"`
	Started   time.Time `json:"started"`
	Ended     time.Time `json:"ended"`
	// Messages is the conversation, as a trajectory's steps: the system
	// prompt (with the guidelines), the task, the model's turns and the
	// tool results.
	Messages []review.Step `json:"messages"`
	Calls    []Call        `json:"calls,omitempty"`
}

// Key names a task run within its run: task, condition and repetition.
func (r *TaskRun) Key() UnitKey { return UnitKey{r.Task, r.Condition, r.Rep} }

// Passed reports whether the task run passed.
func (r *TaskRun) Passed() bool { return r.Status == Passed }

// Graded reports whether the task run counts in the pass rate.
func (r *TaskRun) Graded() bool { return r.Status != Ungradable }

// UnitKey names one unit of work of a run.
type UnitKey struct {
	Task, Condition string
	Rep             int
}

// NewRunID returns a fresh eval run id for a run started at now:
// "ev_<UTC time>_<6 hex digits>".
func NewRunID(now time.Time) string {
	var b [3]byte
	rand.Read(b[:])
	return "ev_" + now.UTC().Format("20060102T150405") + "_" + hex.EncodeToString(b[:])
}
