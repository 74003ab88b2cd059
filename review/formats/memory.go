package formats

// What the memory-bank readers share: one memory → one pending create
// proposal citing its source.

import (
	"fmt"
	"strings"
	"time"

	"github.com/memreview/memreview/review"
)

// memory is what a reader found.
type memory struct {
	text     string
	category review.Category
	tags     []string
	src      review.Source
	line     int
	created  time.Time
}

func (m memory) proposal() Memory {
	var who []string
	if m.src.User != "" {
		who = append(who, "user "+m.src.User)
	}
	if m.src.Agent != "" {
		who = append(who, "agent "+m.src.Agent)
	}
	if m.src.Label != "" {
		who = append(who, "block "+m.src.Label)
	}
	if m.src.Created != "" {
		who = append(who, "created "+m.src.Created)
	}
	id := ""
	if m.src.ID != "" {
		id = " " + m.src.ID
	}
	rationale := fmt.Sprintf("Imported from %s %s (memory%s%s): an existing memory, to be audited before it is trusted.",
		m.src.Format, m.src.File, id, prefixed(", ", strings.Join(who, ", ")))
	src := m.src
	cat := m.category
	if cat == "" {
		cat = review.Fact
	}
	rec := &review.Record{Lemma: m.text, Category: cat, Scope: review.Scope{Tags: m.tags}, Confidence: 0.5,
		Provenance: review.Provenance{Source: &src}, Created: m.created}
	return Memory{Proposal: review.Proposal{Op: review.OpCreate, Record: rec, Rationale: rationale}, Line: m.line}
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

// stamp gives a timestamp as RFC 3339 when it can be read, else as written;
// unread ones are counted.
func stamp(v rawValue, rep *Report) (string, time.Time) {
	if isNull(v) {
		return "", time.Time{}
	}
	if t, ok := parseTime(v); ok {
		return t.Format(time.RFC3339Nano), t
	}
	rep.Skip("timestamps that could not be read (kept as written)", 1)
	return textOf(v), time.Time{}
}

func sourceOf(format, file, id string) review.Source {
	return review.Source{Format: format, File: file, ID: id}
}
