// Package formats reads and writes every interchange format of a bank:
// memreview's own JSON Lines (records, proposals, decisions, trajectories,
// with the OpenAI chat messages a trajectory may carry) and the
// trajectories and memory banks other tools write (SWE-agent,
// OpenTelemetry GenAI and OpenInference spans, Langfuse, Inspect AI,
// OpenHands, ATIF; mem0, the MCP memory server, Letta agent files), into
// the domain's own types: trajectories as []review.Trajectory with their
// raw steps, and memories as pending create proposals that cite where each
// came from.
//
// It owns the format registry (what `memreview formats` lists), detection
// by a file's shape (never its name), the per-file report of what was read
// and what was skipped and why, and the validation of a whole input before
// anything is returned: the domain says which field is wrong and why, and
// this package adds the file, the line or JSON path (*InputError).
//
// It may import the domain (review), probe and review/printable; never a
// store, the index or a front end.
package formats

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/memreview/memreview/review"
)

// Kind is what a format holds.
type Kind string

// The kinds of input.
const (
	Trajectories Kind = "trajectories"
	Memories     Kind = "memories"
)

// Format is one input format: how to recognise it and how to read it.
type Format struct {
	Name  string
	Kind  Kind
	About string // one line: what it reads
	// fits says why the input does not have this format's shape (nil when
	// it does).
	fits func(in *Input) error
	// trajectories or memories reads the whole input (one of them is set).
	trajectories func(in *Input, rep *Report) ([]review.Trajectory, error)
	memories     func(in *Input, rep *Report) ([]Memory, error)
}

// Memory is one imported memory: the proposal that asks to create it and
// where it was in the file.
type Memory struct {
	Proposal review.Proposal
	Line     int // 1-based line it starts on (0 when unknown)
}

// Report says what one file gave and what was skipped, and why.
type Report struct {
	File      string         `json:"file"`
	Format    string         `json:"format"`
	Runs      int            `json:"runs,omitempty"`
	Steps     int            `json:"steps,omitempty"`
	ToolCalls int            `json:"tool_calls,omitempty"`
	Linked    int            `json:"results_linked,omitempty"` // tool results matched to their call
	Outcomes  int            `json:"outcomes,omitempty"`       // runs whose format gave an outcome
	Memories  int            `json:"memories,omitempty"`
	Skipped   map[string]int `json:"skipped,omitempty"` // reason → count
	Notes     []string       `json:"notes,omitempty"`   // things worth knowing, not skips (duplicates, dangling links)
	// Places says where each trajectory starts and which field its id came
	// from (parallel to the trajectories; a zero Place when unknown).
	Places []Place `json:"-"`
	// Retrievals are the memory searches the file's runs made (GenAI
	// search_memory spans), for the retrieval log; TaskID names the run.
	Retrievals []review.Retrieval `json:"retrievals,omitempty"`
}

// Skip counts n things skipped for reason.
func (r *Report) Skip(reason string, n int) {
	if n <= 0 {
		return
	}
	if r.Skipped == nil {
		r.Skipped = map[string]int{}
	}
	r.Skipped[reason] += n
}

// Note records something worth knowing about the file.
func (r *Report) Note(format string, args ...any) {
	if len(r.Notes) < 20 {
		r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
	} else if len(r.Notes) == 20 {
		r.Notes = append(r.Notes, "… more notes left out")
	}
}

// SkipLines gives the skips as "reason: n" lines, sorted by reason.
func (r *Report) SkipLines() []string {
	keys := slices.Sorted(maps.Keys(r.Skipped))
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = fmt.Sprintf("%s: %d", k, r.Skipped[k])
	}
	return out
}

func (r *Report) countRun(t *review.Trajectory) {
	r.Runs++
	r.Steps += len(t.Steps)
	for _, s := range t.Steps {
		r.ToolCalls += len(s.ToolCalls)
	}
}

// registry holds every format, in detection order: the specific shapes
// before the general ones (ATIF's "steps" before memreview's own, SWE-agent's
// "history" before OpenAI chat's).
var registry []*Format

// detectOrder is the order formats are tried in (init order follows file
// names, which is not it).
var detectOrder = []string{"atif", "swe-agent", "inspect-ai", "langfuse", "otel", "openhands", "openai", "mem0", "mcp-memory", "letta", "agents-md"}

func register(f *Format) {
	registry = append(registry, f)
	rank := func(name string) int {
		for i, n := range detectOrder {
			if n == name {
				return i
			}
		}
		return len(detectOrder)
	}
	sort.SliceStable(registry, func(i, j int) bool { return rank(registry[i].Name) < rank(registry[j].Name) })
}

// Formats lists the formats of kind k ("" for all), in detection order.
func Formats(k Kind) []*Format {
	var out []*Format
	for _, f := range registry {
		if k == "" || f.Kind == k {
			out = append(out, f)
		}
	}
	return out
}

// Lookup finds a format by name.
func Lookup(name string) (*Format, bool) {
	for _, f := range registry {
		if f.Name == name {
			return f, true
		}
	}
	return nil, false
}

// Names lists the names of the formats of kind k.
func Names(k Kind) string {
	var ns []string
	for _, f := range Formats(k) {
		ns = append(ns, f.Name)
	}
	return strings.Join(ns, ", ")
}

// Detect finds the format of kind k whose shape in fits, or returns an
// error naming every format tried and why each did not fit.
func Detect(in *Input, k Kind) (*Format, error) {
	var why []string
	for _, f := range Formats(k) {
		err := f.fits(in)
		if err == nil {
			return f, nil
		}
		why = append(why, f.Name+": "+err.Error())
	}
	return nil, &InputError{File: in.File, Msg: fmt.Sprintf("not in any known %s format (%s); tried %s. Use --format NAME to force one and see where it fails",
		k, in.shapeText(), strings.Join(why, "; "))}
}

// ReadTrajectories reads a trajectory file: in format (detected when nil).
// The whole input is read and checked before anything is returned; on an
// error no trajectories are returned.
func ReadTrajectories(in *Input, format *Format) ([]review.Trajectory, *Report, error) {
	f, err := choose(in, format, Trajectories)
	if err != nil {
		return nil, nil, err
	}
	rep := &Report{File: in.File, Format: f.Name}
	ts, err := f.trajectories(in, rep)
	if err != nil {
		return nil, nil, err
	}
	if len(rep.Places) != len(ts) {
		rep.Places = nil // a reader that places only some runs places none
	}
	// A run with no steps is nothing to review: it is skipped, and a file
	// with no run that has a step is an error.
	kept := ts[:0]
	var places []Place
	for i, t := range ts {
		if len(t.Steps) == 0 {
			rep.Skip("runs with no steps", 1)
			continue
		}
		if strings.TrimSpace(t.ID) == "" {
			t.ID = fileID(fileBaseName(in.File), fmt.Sprintf("-%d", len(kept)+1))
		}
		kept = append(kept, t)
		if rep.Places != nil {
			places = append(places, rep.Places[i])
		}
	}
	ts, rep.Places = kept, places
	if len(ts) == 0 {
		return nil, nil, &InputError{File: in.File, Msg: fmt.Sprintf("no run with any step in it (read as %s; skipped: %s)", f.Name, strings.Join(rep.SkipLines(), ", "))}
	}
	for i := range ts {
		if ts[i].Format == "" {
			ts[i].Format = f.Name
		}
		rep.countRun(&ts[i])
		if ts[i].Outcome.Kind != review.OutcomeUnknown {
			rep.Outcomes++
		}
	}
	if err := checkRuns(in, ts, rep.Places); err != nil {
		return nil, nil, err
	}
	return ts, rep, nil
}

// ReadMemories reads a memory-bank file into pending create proposals, in
// format (detected when nil). env, when set, scopes every record to it.
func ReadMemories(in *Input, format *Format, env string) ([]Memory, *Report, error) {
	f, err := choose(in, format, Memories)
	if err != nil {
		return nil, nil, err
	}
	rep := &Report{File: in.File, Format: f.Name}
	ms, err := f.memories(in, rep)
	if err != nil {
		return nil, nil, err
	}
	for i := range ms {
		p := &ms[i].Proposal
		p.Op, p.Status = review.OpCreate, review.Pending
		if p.Record != nil && env != "" {
			p.Record.Scope.Env = env
		}
	}
	rep.Memories = len(ms)
	return ms, rep, nil
}

func choose(in *Input, format *Format, k Kind) (*Format, error) {
	if format == nil {
		return Detect(in, k)
	}
	if format.Kind != k {
		return nil, fmt.Errorf("format %s reads %s, not %s (formats for %s: %s)", format.Name, format.Kind, k, k, Names(k))
	}
	// Readers rely on their shape: a forced format that does not fit says why.
	if err := format.fits(in); err != nil {
		return nil, &InputError{File: in.File, Msg: fmt.Sprintf("not in format %s (%s): %v", format.Name, in.shapeText(), err)}
	}
	return format, nil
}

// placeOf says where the id at path (within raw, at base in the file) is;
// fromField is false when the id did not come from that field.
func placeOf(in *Input, base int64, raw []byte, path string, fromField bool) Place {
	if !fromField {
		return Place{}
	}
	off, ok := locate(raw, path)
	if !ok {
		return Place{}
	}
	return Place{Line: in.lineAt(base + off), Field: path}
}
