package review

import (
	"fmt"
	"strings"

	"github.com/memreview/memreview/review/printable"
)

// checkRecord validates a record's content (not its id) and returns the
// offending field and a message, or "", "".
func CheckRecord(rec *Record) (field, msg string) { return CheckRecordUpTo(rec, -1) }

// checkRecordUpTo is checkRecord given an upper bound of the record's
// content size as JSON (-1: unknown).
func CheckRecordUpTo(rec *Record, upper int) (field, msg string) {
	if field, msg := checkRecordLimitsUpTo(rec, upper); msg != "" {
		return field, msg
	}
	if strings.TrimSpace(rec.Lemma) == "" {
		return "lemma", "missing lemma"
	}
	if rec.Category == "" {
		return "category", "missing category (want one of " + categoryList() + ")"
	}
	if !rec.Category.Valid() {
		return "category", fmt.Sprintf("unknown category %q (want one of %s)", rec.Category, categoryList())
	}
	if !(rec.Confidence >= 0 && rec.Confidence <= 1) { // NaN too
		return "confidence", fmt.Sprintf("confidence %g is outside 0..1", rec.Confidence)
	}
	switch rec.Status {
	case "", Active, Retired:
	default:
		return "status", fmt.Sprintf("unknown status %q (want active or retired)", rec.Status)
	}
	if rec.Version < 0 {
		return "version", fmt.Sprintf("version %d is negative", rec.Version)
	}
	if s := rec.Provenance.Steps; s != nil {
		if m := CheckRange(*s); m != "" {
			return "provenance.steps", m
		}
	}
	for i, c := range rec.Checks {
		if strings.TrimSpace(c.Env) == "" {
			return fmt.Sprintf("checks[%d].env", i), "missing env"
		}
		if strings.TrimSpace(c.Input) == "" {
			return fmt.Sprintf("checks[%d].input", i), "missing input"
		}
	}
	return "", ""
}

func CheckRange(s StepRange) string {
	if s.From < 1 || s.To < s.From {
		return fmt.Sprintf("bad step range %d..%d (want 1 <= from <= to)", s.From, s.To)
	}
	return ""
}

func categoryList() string {
	names := make([]string, len(Categories))
	for i, c := range Categories {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

func OpList() string {
	names := make([]string, len(Ops))
	for i, o := range Ops {
		names[i] = string(o)
	}
	return strings.Join(names, ", ")
}

// validateRecord checks what every stored record must satisfy.
func ValidateRecord(r *Record) error { return validateRecordUpTo(r, -1) }

// validateRecordUpTo is validateRecord given an upper bound of the
// record's content size as JSON (checkRecordLimitsUpTo).
func validateRecordUpTo(r *Record, upper int) error {
	if field, msg := checkRecordLimitsUpTo(r, upper); msg != "" {
		if field == "" {
			return fmt.Errorf("record %s: %s", printable.Line(r.ID), msg)
		}
		return fmt.Errorf("record %s: field %q: %s", printable.Line(r.ID), field, msg)
	}
	switch {
	case strings.TrimSpace(r.Lemma) == "":
		return fmt.Errorf("record %s: field \"lemma\" is empty", r.ID)
	case !r.Category.Valid():
		return fmt.Errorf("record %s: field \"category\": unknown category %q", r.ID, r.Category)
	case !(r.Confidence >= 0 && r.Confidence <= 1): // NaN too

		return fmt.Errorf("record %s: field \"confidence\": %v is outside 0..1", r.ID, r.Confidence)
	case r.Status != Active && r.Status != Retired:
		return fmt.Errorf("record %s: field \"status\": unknown status %q", r.ID, r.Status)
	}
	return nil
}
