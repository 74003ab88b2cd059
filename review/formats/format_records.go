package formats

// Readers for memreview's own JSON Lines formats: records, proposals and
// decisions. Each validates the whole input and returns every item or one
// *InputError; see docs/FORMATS.md.

import (
	"fmt"
	"io"
	"strings"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/printable"
)

// ReadRecords reads records as JSON Lines (one Record per line). Unknown
// fields, unknown categories or statuses, missing ids or lemmas, duplicate
// ids and confidences outside 0..1 are errors. A missing status becomes
// active; version 0 is left for the store.
func ReadRecords(r io.Reader, file string) ([]review.Record, error) {
	recs, _, err := ReadRecordsAt(r, file)
	return recs, err
}

// ReadRecordsAt is ReadRecords that also returns the line each record came
// from (for CheckNewRecords).
func ReadRecordsAt(r io.Reader, file string) ([]review.Record, []int, error) {
	return readRecords(r, file)
}

// CheckNewRecords refuses, naming file, line and field "id", a record
// that is already in the bank (exists) or that an earlier file of the
// same import holds (from: id → "file:line", filled as it goes).
func CheckNewRecords(file string, recs []review.Record, lines []int, exists func(id string) bool, from map[string]string) error {
	for i, rec := range recs {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		if exists(rec.ID) {
			return inputErr(file, line, "id", "record %s is already in the bank", printable.Line(rec.ID))
		}
		if at, dup := from[rec.ID]; dup {
			return inputErr(file, line, "id", "duplicate id: record %s is also in %s", printable.Line(rec.ID), at)
		}
		from[rec.ID] = fmt.Sprintf("%s:%d", fileName(file), line)
	}
	return nil
}

func readRecords(r io.Reader, file string) ([]review.Record, []int, error) {
	lines, err := readJSONLines(r, file, review.MaxLineBytes)
	if err != nil {
		return nil, nil, err
	}
	recs := make([]review.Record, len(lines))
	at := make([]int, len(lines))
	seen := map[string]int{}
	for i, l := range lines {
		rec := &recs[i]
		at[i] = l.n
		if err := decodeLine(file, l.n, l.data, rec, true); err != nil {
			return nil, nil, err
		}
		if strings.TrimSpace(rec.ID) == "" {
			return nil, nil, inputErr(file, l.n, "id", "missing id")
		}
		if first, ok := seen[rec.ID]; ok {
			return nil, nil, inputErr(file, l.n, "id", "duplicate id %q (first on line %d)", rec.ID, first)
		}
		seen[rec.ID] = l.n
		if rec.Status == "" {
			rec.Status = review.Active
		}
		if field, msg := review.CheckRecordUpTo(rec, LineBound(len(l.data))); msg != "" {
			return nil, nil, inputErr(file, l.n, field, "%s", msg)
		}
	}
	return recs, at, nil
}

// lineBound bounds the JSON size of a record decoded from a line of n
// bytes, so that most records are not encoded again to measure them
// (checkRecordLimitsUpTo): a string's byte re-encodes to at most 6 ("<"
// as \u003c), a number or literal to at most 6 times its text, and each
// object adds at most the fields it left out: 166 bytes for the record,
// 78 for a check (written "{}", 2 bytes). The store measures a record
// exactly again whenever its body comes near the limit, so a looser bound
// would only move the error from the file's line to the write.
func LineBound(n int) int { return 64*n + 256 }

// proposalStatuses are the statuses a proposal line may carry.
var proposalStatuses = []review.ProposalStatus{review.Pending, review.Deferred, review.Accepted, review.Narrowed, review.Merged, review.Deleted, review.Rejected, review.Edited}

// ReadProposals reads proposals as JSON Lines (one Proposal per line) and
// returns them with the line each came from (for CheckProposalTargets).
// Unknown fields, unknown ops or statuses, duplicate ids, and a shape that
// does not fit the op (see checkProposalShape) are errors. An empty id is
// allowed: the store assigns one.
func ReadProposals(r io.Reader, file string) ([]review.Proposal, []int, error) {
	lines, err := readJSONLines(r, file, review.MaxLineBytes)
	if err != nil {
		return nil, nil, err
	}
	ps := make([]review.Proposal, len(lines))
	at := make([]int, len(lines))
	seen := map[string]int{}
	for i, l := range lines {
		p := &ps[i]
		at[i] = l.n
		if err := decodeLine(file, l.n, l.data, p, true); err != nil {
			return nil, nil, err
		}
		if p.ID != "" {
			if first, ok := seen[p.ID]; ok {
				return nil, nil, inputErr(file, l.n, "id", "duplicate id %q (first on line %d)", p.ID, first)
			}
			seen[p.ID] = l.n
		}
		if err := checkProposalShape(file, l.n, p); err != nil {
			return nil, nil, err
		}
	}
	return ps, at, nil
}

// checkProposalShape checks what a proposal must hold for its op: create
// needs a record; update and narrow need targets and a record; merge needs
// at least one target and a record; delete needs targets; skip needs
// nothing. A record it carries must be valid (its id may be empty).
func checkProposalShape(file string, line int, p *review.Proposal) error {
	if f, m := review.CheckIDs("id", p.ID, "trajectory", p.Trajectory, "curator_run", p.CuratorRun); m != "" {
		return inputErr(file, line, f, "%s", m)
	}
	if p.Op == "" {
		return inputErr(file, line, "op", "missing op (want one of %s)", review.OpList())
	}
	if !p.Op.Valid() {
		return inputErr(file, line, "op", "unknown op %q (want one of %s)", p.Op, review.OpList())
	}
	if p.Status != "" && !validProposalStatus(p.Status) {
		return inputErr(file, line, "status", "unknown status %q", p.Status)
	}
	needRecord, needTargets := false, false
	switch p.Op {
	case review.OpCreate:
		needRecord = true
	case review.OpUpdate, review.OpNarrow, review.OpMerge:
		needRecord, needTargets = true, true
	case review.OpDelete:
		needTargets = true
	}
	if needTargets && len(p.Targets) == 0 {
		return inputErr(file, line, "targets", "op %s needs at least one target record", p.Op)
	}
	if m := review.CheckTargetCount(p.Op, len(p.Targets)); m != "" {
		return inputErr(file, line, "targets", "%s", m)
	}
	seen := map[string]bool{}
	for i, t := range p.Targets {
		f := fmt.Sprintf("targets[%d]", i)
		if strings.TrimSpace(t.ID) == "" {
			return inputErr(file, line, f+".id", "missing id")
		}
		if err := review.CheckID(t.ID); err != nil {
			return inputErr(file, line, f+".id", "%v", err)
		}
		if seen[t.ID] {
			return inputErr(file, line, f+".id", "record %q is targeted twice", t.ID)
		}
		seen[t.ID] = true
		if t.Version < 0 {
			return inputErr(file, line, f+".version", "version %d is negative", t.Version)
		}
	}
	if needRecord && p.Record == nil {
		return inputErr(file, line, "record", "op %s needs a record", p.Op)
	}
	if p.Record != nil {
		if field, msg := review.CheckRecord(p.Record); msg != "" {
			return inputErr(file, line, joinField("record", field), "%s", msg)
		}
	}
	if m := review.CheckText(p.Rationale); m != "" {
		return inputErr(file, line, "rationale", "%s", m)
	}
	if f, m := review.CheckIDList("evidence.probe_runs", p.Evidence.ProbeRuns); m != "" {
		return inputErr(file, line, f, "%s", m)
	}
	for i, s := range p.Evidence.Steps {
		if m := review.CheckRange(s); m != "" {
			return inputErr(file, line, fmt.Sprintf("evidence.steps[%d]", i), "%s", m)
		}
	}
	return nil
}

func validProposalStatus(s review.ProposalStatus) bool {
	for _, k := range proposalStatuses {
		if s == k {
			return true
		}
	}
	return false
}

// CheckProposalTargets checks proposals against the bank: every target must
// name a record for which exists returns true, and each proposal's shape
// must fit its op. lines[i] is the line proposal i came from (as
// ReadProposals returns; nil or short means unknown, reported as line 0).
func CheckProposalTargets(file string, ps []review.Proposal, lines []int, exists func(id string) bool) error {
	for i := range ps {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		p := &ps[i]
		if err := checkProposalShape(file, line, p); err != nil {
			return err
		}
		for j, t := range p.Targets {
			if !exists(t.ID) {
				return inputErr(file, line, fmt.Sprintf("targets[%d].id", j), "no record %q in the bank", t.ID)
			}
		}
	}
	return nil
}

// decisionVerbs are the verbs a decision line may carry.
var decisionVerbs = []review.Verb{review.Accept, review.Narrow, review.Merge, review.Delete, review.Reject, review.Edit, review.Defer, review.Undo}

// ReadDecisions reads decisions as JSON Lines (one Decision per line), as
// exported. Unknown fields and verbs, missing ids or operators, and
// duplicate ids are errors; records a decision carries are validated like
// records. The proposal may be empty (changes made in the bank browser).
func ReadDecisions(r io.Reader, file string) ([]review.Decision, error) {
	lines, err := readJSONLines(r, file, review.MaxLineBytes)
	if err != nil {
		return nil, err
	}
	ds := make([]review.Decision, len(lines))
	seen := map[string]int{}
	for i, l := range lines {
		d := &ds[i]
		if err := decodeLine(file, l.n, l.data, d, true); err != nil {
			return nil, err
		}
		if strings.TrimSpace(d.ID) == "" {
			return nil, inputErr(file, l.n, "id", "missing id")
		}
		if first, ok := seen[d.ID]; ok {
			return nil, inputErr(file, l.n, "id", "duplicate id %q (first on line %d)", d.ID, first)
		}
		if f, m := review.CheckIDs("id", d.ID, "proposal", d.Proposal, "undoes", d.Undoes, "undone_by", d.UndoneBy); m != "" {
			return nil, inputErr(file, l.n, f, "%s", m)
		}
		if f, m := review.CheckIDList("evidence", d.Evidence); m != "" {
			return nil, inputErr(file, l.n, f, "%s", m)
		}
		for _, t := range []struct{ f, s string }{{"note", d.Note}, {"operator", d.Operator}} {
			if m := review.CheckText(t.s); m != "" {
				return nil, inputErr(file, l.n, t.f, "%s", m)
			}
		}
		seen[d.ID] = l.n
		if err := checkDecision(file, l.n, d); err != nil {
			return nil, err
		}
	}
	return ds, nil
}

func checkDecision(file string, line int, d *review.Decision) error {
	known := false
	names := make([]string, len(decisionVerbs))
	for i, v := range decisionVerbs {
		known = known || d.Verb == v
		names[i] = string(v)
	}
	if !known {
		return inputErr(file, line, "verb", "unknown verb %q (want one of %s)", d.Verb, strings.Join(names, ", "))
	}
	if strings.TrimSpace(d.Operator) == "" {
		return inputErr(file, line, "operator", "missing operator")
	}
	if d.Record != nil {
		if field, msg := review.CheckRecord(d.Record); msg != "" {
			return inputErr(file, line, joinField("record", field), "%s", msg)
		}
	}
	for i, c := range d.Changes {
		if err := review.CheckID(c.RecordID); err != nil {
			return inputErr(file, line, fmt.Sprintf("changes[%d].record_id", i), "%v", err)
		}
	}
	if d.PrevStatus != "" && !validProposalStatus(d.PrevStatus) {
		return inputErr(file, line, "prev_status", "unknown status %q", d.PrevStatus)
	}
	return nil
}
