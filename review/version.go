package review

import (
	"encoding/json"
	"time"
)

// NewVersion turns r into the version after cur (0: a new record) written
// at now — version number, timestamps, default status, validation — and
// returns the JSON body a store keeps. Every store writes records through
// it: the SQLite store row by row, the PostgreSQL store's bulk import
// (review/store/pg) with COPY.
func NewVersion(r *Record, cur int, now time.Time) (string, error) {
	r.Version = cur + 1
	r.Updated = now
	if cur == 0 && r.Created.IsZero() {
		r.Created = now
	}
	if r.Status == "" {
		r.Status = Active
	}
	r.Suspect = false
	// The size MaxRecordBytes bounds is r's without its provenance,
	// status and suspect flag: never more than a byte over the body's
	// (false is a byte longer than true), so a body within the limit is
	// not encoded a second time to measure it. Everything else is checked
	// before the body is encoded (a NaN confidence would not encode).
	if err := validateRecordUpTo(r, 0); err != nil {
		return "", err
	}
	body := encode(r)
	if len(body)+1 > MaxRecordBytes {
		if err := ValidateRecord(r); err != nil {
			return "", err
		}
	}
	return body, nil
}

// Timestamp is how stores write a time in their text columns: UTC, always
// nine fractional digits, so that the text sorts and compares as the times
// do (RFC 3339 with trailing zeros cut does not: "…:05Z" > "…:05.1Z" as
// text). A stored time from an older bank, in the short form, still parses.
func Timestamp(t time.Time) string { return t.UTC().Format(TimestampLayout) }

// TimestampLayout is Timestamp's layout.
const TimestampLayout = "2006-01-02T15:04:05.000000000Z07:00"

// encode is a record's JSON body; the domain's own types always encode.
func encode(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
