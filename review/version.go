package review

import "time"

// NewVersion turns r into the version after cur (0: a new record) written
// at now — version number, timestamps, default status, validation — and
// returns the JSON body a store keeps. Every store writes records through
// it: the SQLite store row by row, the PostgreSQL store's bulk import
// (review/pgstore) with COPY.
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
	if err := validateRecord(r); err != nil {
		return "", err
	}
	return marshal(r), nil
}

// Timestamp is how stores write a time in their text columns (RFC 3339
// with nanoseconds, UTC).
func Timestamp(t time.Time) string { return ts(t) }
