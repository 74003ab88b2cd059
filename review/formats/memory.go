package formats

// What the memory-bank readers share: one memory → one pending create
// proposal citing its source.

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memreview/memreview/review"
)

// memory is what a reader found, and where: the item (raw, at base in
// the file, at path there) and the field each piece came from, so that a
// piece the bank would refuse is named where it is.
type memory struct {
	text     string
	category review.Category
	tags     []string
	src      review.Source
	line     int
	created  time.Time

	base      int64
	raw       rawValue
	path      string
	textField string   // the field the text came from
	tagFields []string // parallel to tags
	srcFields map[string]string
	listField string // the field to name when the record as a whole is too large
	where     string // where it is, in words, when a line says it better than an id ("line 12, under “Testing”")
}

// field records that the source piece key (id, user, agent, label) came
// from field.
func (m *memory) field(key, field string) {
	if m.srcFields == nil {
		m.srcFields = map[string]string{}
	}
	m.srcFields[key] = field
}

// tag adds a scope tag that came from field.
func (m *memory) tag(t, field string) {
	m.tags = append(m.tags, t)
	m.tagFields = append(m.tagFields, field)
}

// check refuses what the bank would refuse of the record the memory
// becomes (review.CheckRecordLimits), naming the input field: a tag, the
// text, a source id or name past the text limit, or a record past
// review.MaxRecordBytes.
func (m *memory) check(in *Input) error {
	at := func(field, what, msg string) error {
		return in.errIn(m.base, m.raw, m.path, field, "%s %s", what, msg)
	}
	for i, t := range m.tags {
		if msg := review.CheckText(t); msg != "" {
			return at(m.tagFields[i], "the tag "+clip(t, 40)+" it becomes is", msg)
		}
	}
	for _, p := range []struct{ key, v string }{{"id", m.src.ID}, {"user", m.src.User}, {"agent", m.src.Agent}, {"label", m.src.Label},
		{"created", m.src.Created}, {"updated", m.src.Updated}, {"expires", m.src.Expires}} {
		if msg := review.CheckText(p.v); msg != "" {
			return at(m.srcFields[p.key], "the "+p.key+" it cites is", msg)
		}
	}
	if msg := review.CheckText(m.text); msg != "" {
		return at(m.textField, "the memory's text is", msg)
	}
	p := m.proposal()
	if field, msg := review.CheckRecordLimits(p.Proposal.Record); msg != "" {
		if field == "" {
			field = m.listField
		}
		return in.errIn(m.base, m.raw, m.path, field, "%s", msg)
	}
	return nil
}

// clip shortens s to about n bytes (at a rune boundary) for a message or
// a rationale.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func (m memory) proposal() Memory {
	// The rationale names the source in words, each piece clipped (the
	// provenance holds it whole), so that it stays within the text limit.
	const piece = 200
	var who []string
	if m.src.User != "" {
		who = append(who, "user "+clip(m.src.User, piece))
	}
	if m.src.Agent != "" {
		who = append(who, "agent "+clip(m.src.Agent, piece))
	}
	if m.src.Label != "" {
		who = append(who, "block "+clip(m.src.Label, piece))
	}
	if m.src.Created != "" {
		who = append(who, "created "+clip(m.src.Created, piece))
	}
	id := ""
	if m.src.ID != "" {
		id = " " + clip(m.src.ID, piece)
	}
	rationale := fmt.Sprintf("Imported from %s %s (memory%s%s): an existing memory, to be audited before it is trusted.",
		m.src.Format, clip(m.src.File, 4*piece), id, prefixed(", ", strings.Join(who, ", ")))
	if m.where != "" {
		rationale = fmt.Sprintf("Imported from %s %s (%s): an existing memory, to be audited before it is trusted.",
			m.src.Format, clip(m.src.File, 4*piece), m.where)
	}
	src := m.src
	cat := m.category
	if cat == "" {
		cat = review.Fact
	}
	rec := &review.Record{Lemma: m.text, Category: cat, Scope: review.Scope{Tags: m.tags}, Confidence: 0.5,
		Provenance: review.Provenance{Source: &src}, Created: m.created}
	return Memory{Proposal: review.Proposal{Op: review.OpCreate, Record: rec, Rationale: rationale, Fingerprint: m.fingerprint()}, Line: m.line}
}

// fingerprint keys the memory by what it says and whose it is (not by the
// file it was read from): "import/FORMAT/HASH". Importing a file twice
// gives the same fingerprints, so a caller can see the memories it has
// already queued.
func (m memory) fingerprint() string {
	h := sha256.New()
	for _, s := range []string{m.src.Format, m.src.ID, m.src.User, m.src.Agent, m.src.Label, string(m.category), m.text} {
		fmt.Fprintf(h, "%d:%s\x00", len(s), s)
	}
	return fmt.Sprintf("import/%s/%x", m.src.Format, h.Sum(nil)[:12])
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
