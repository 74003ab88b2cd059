package review

// The limits on what enters the bank, one set for every source (imports,
// the curator, edits and decisions in the TUI or CLI, an agent's proposal):
// they are checked where text enters the bank (validateRecord, AddProposals,
// decisions) and by the import readers, which name file, line and field.
// They fit together so that whatever the bank holds exports as lines that
// import reads back: a text field is at most MaxTextBytes, a whole record
// (checks included) at most MaxRecordBytes, a decision (which may carry
// the records a merge changed) at most MaxLineBytes, the import line limit.
// See docs/FORMATS.md, "Limits".

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memreview/memreview/review/printable"
)

const (
	// MaxIDBytes is the longest id (record, proposal, decision,
	// trajectory, probe run).
	MaxIDBytes = 200
	// MaxTextBytes is the longest text field: a lemma, trigger, step, tag,
	// rationale, note, check input.
	MaxTextBytes = 64 << 10
	// MaxRecordBytes is the largest record content: the record as JSON,
	// checks included, without its provenance and status (which the store
	// itself changes when it retires or merges a record).
	MaxRecordBytes = 1 << 20
	// MaxTrajectoryBytes is the largest trajectory as JSON (json.Marshal,
	// as the store writes it): what one run may become however its input
	// expands (Inspect's attachment:// references), well within
	// MaxTrajectoryLineBytes so that a stored trajectory exports as a line
	// import reads back.
	MaxTrajectoryBytes = 64 << 20
)

// CheckID says what is wrong with an id, or nil: ids are 1 to MaxIDBytes
// bytes of printable UTF-8 without white space, path separators ('/', '\')
// or control characters, and are not "." or "..".
func CheckID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("the id is empty")
	case len(id) > MaxIDBytes:
		return fmt.Errorf("the id is %d bytes long, over the %d an id may hold", len(id), MaxIDBytes)
	case !utf8.ValidString(id):
		return fmt.Errorf("the id %s is not valid UTF-8", printable.Line(id))
	case id == "." || id == "..":
		return fmt.Errorf("the id %q is not a name", id)
	case strings.ContainsAny(id, `/\`):
		return fmt.Errorf("the id %s holds a path separator", printable.Line(id))
	case strings.ContainsFunc(id, func(r rune) bool { return unicode.IsSpace(r) || printable.Unsafe(r) || !unicode.IsPrint(r) }):
		return fmt.Errorf("the id %s holds white space or control characters", printable.Line(id))
	}
	return nil
}

// CheckRecordLimits checks a record against the limits before it is
// proposed (the curator tells the model at once): the offending field ("" for
// the whole record) and a message, or "", "".
func CheckRecordLimits(r *Record) (field, msg string) { return checkRecordLimits(r) }

// CheckText says what is wrong with a text field (too long), or "".
func CheckText(s string) string {
	if len(s) > MaxTextBytes {
		return fmt.Sprintf("%d bytes, over the %d a text field may hold", len(s), MaxTextBytes)
	}
	return ""
}

// checkRecordLimits checks a record's ids, text fields and encoded size
// and returns the offending field and a message, or "", "". The record's
// own id is checked when not empty (proposals may leave it to the store).
func checkRecordLimits(r *Record) (field, msg string) { return checkRecordLimitsUpTo(r, -1) }

// checkRecordLimitsUpTo is checkRecordLimits given upper, a size the
// record's content is known not to exceed as JSON (-1: unknown): when it
// is within MaxRecordBytes the record is not encoded again to measure it.
func checkRecordLimitsUpTo(r *Record, upper int) (field, msg string) {
	if r.ID != "" {
		if err := CheckID(r.ID); err != nil {
			return "id", err.Error()
		}
	}
	texts := []struct {
		field, s string
	}{{"lemma", r.Lemma}, {"trigger", r.Trigger}, {"scope.env", r.Scope.Env}, {"scope.task_family", r.Scope.TaskFamily}, {"verified_against", r.VerifiedAgainst}}
	for i, s := range r.Steps {
		texts = append(texts, struct{ field, s string }{fmt.Sprintf("steps[%d]", i), s})
	}
	for i, s := range r.Scope.Tags {
		texts = append(texts, struct{ field, s string }{fmt.Sprintf("scope.tags[%d]", i), s})
	}
	for i, c := range r.Checks {
		texts = append(texts, struct{ field, s string }{fmt.Sprintf("checks[%d].input", i), c.Input}, struct{ field, s string }{fmt.Sprintf("checks[%d].env", i), c.Env})
	}
	for _, t := range texts {
		if m := CheckText(t.s); m != "" {
			return t.field, m
		}
	}
	if f, m := CheckIDs("provenance.trajectory", r.Provenance.Trajectory, "provenance.merged_into", r.Provenance.MergedInto); m != "" {
		return f, m
	}
	if f, m := CheckIDList("provenance.probe_runs", r.Provenance.ProbeRuns); m != "" {
		return f, m
	}
	if f, m := CheckIDList("provenance.merged_from", r.Provenance.MergedFrom); m != "" {
		return f, m
	}
	if upper >= 0 && upper <= MaxRecordBytes {
		return "", ""
	}
	if n := ContentSize(r); n > MaxRecordBytes {
		return "", fmt.Sprintf("the record is %d bytes as JSON, over the %d a record may hold (shorten its text or drop large check results)", n, MaxRecordBytes)
	}
	return "", ""
}

// contentSize is the size MaxRecordBytes bounds.
func ContentSize(r *Record) int {
	c := *r
	c.Provenance, c.Status, c.Suspect = Provenance{}, "", false
	return EncodedSize(&c)
}

func EncodedSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

// checkIDs checks optional ids given as field, id pairs.
func CheckIDs(pairs ...string) (field, msg string) {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			continue
		}
		if err := CheckID(pairs[i+1]); err != nil {
			return pairs[i], err.Error()
		}
	}
	return "", ""
}

// checkIDList checks a list of ids (none may be empty).
func CheckIDList(field string, ids []string) (string, string) {
	for i, id := range ids {
		if err := CheckID(id); err != nil {
			return fmt.Sprintf("%s[%d]", field, i), err.Error()
		}
	}
	return "", ""
}

// Line caps. A record, proposal or decision line longer than MaxLineBytes is
// refused; everything the bank can hold fits in one (see limits.go).
// Trajectory files (whose runs are often one long line, or a whole
// document) allow MaxTrajectoryLineBytes.
const (
	MaxLineBytes           = 16 << 20
	MaxTrajectoryLineBytes = 256 << 20
)
