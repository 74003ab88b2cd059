package bank

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/form"
)

// The record verbs: each writes through the service in a Cmd, audited as
// a decision (the service catches the index up) with N's note when one is
// kept (note.go); the screen says done only after.

type written struct {
	verb review.Verb
	dec  *review.Decision
	err  error
	undo string // for an undo: the decision asked to undo
}

type verified struct {
	id      string
	version int // the record version the checks ran for
	results []review.CheckResult
	stale   bool // the record left that version while they ran: the store dropped the results
	err     error
}

// verbKey starts a verb when msg names one that applies now.
func (m *Model) verbKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := m.Keys
	if !m.keys.Rebaseline.Enabled() && slices.Contains(m.keys.Rebaseline.Keys(), msg.String()) && m.ready() {
		return common.Notify(m.whyNoRebaseline()), true // b does not apply: say why, and what does
	}
	switch {
	case key.Matches(msg, k.Undo):
		return m.undo(), true
	case key.Matches(msg, m.keys.Verify):
		return m.verify(), true
	case key.Matches(msg, k.Edit):
		m.overlay = newEditForm(m)
		return form.LoadEnvNames(m.deps.Service), true
	case key.Matches(msg, k.Narrow):
		m.overlay = newNarrowForm(m)
		return form.LoadEnvNames(m.deps.Service), true
	case key.Matches(msg, k.Merge):
		return m.loadMerge(), true
	case key.Matches(msg, k.Delete):
		r := m.detail.Record
		m.overlay = &confirmDelete{id: r.ID, version: r.Version}
		return nil, true
	case key.Matches(msg, k.Note):
		m.overlay = newNoteForm(m)
		return nil, true
	case key.Matches(msg, m.keys.Rebaseline):
		r := m.detail.Record
		m.overlay = &confirmRebaseline{id: r.ID, version: r.Version, checks: m.rebaselineable()}
		return nil, true
	}
	return nil, false
}

// mergeLoaded carries the marked records a merge folds into the selected
// one, read fresh so the combined record holds all they say.
type mergeLoaded struct {
	base    string // the selected record when m was pressed
	with    []string
	seen    map[string]int
	sources []review.Record
	err     error
}

// loadMerge reads the marked records in a Cmd; mergeLoaded opens the form.
func (m *Model) loadMerge() tea.Cmd {
	with := m.marked()
	sort.Strings(with)
	seen := m.seenVersions(with)
	base, svc := m.detail.Record.ID, m.deps.Service
	return func() tea.Msg {
		out := mergeLoaded{base: base, with: with, seen: seen}
		for _, id := range with {
			r, err := svc.Record(id)
			if err != nil {
				out.err = fmt.Errorf("read %s: %w", id, err)
				return out
			}
			out.sources = append(out.sources, *r)
		}
		return out
	}
}

// mergeReady opens the merge form on review.Combine of the selected record
// and the marked ones: every lemma sentence, trigger, step, tag and check
// of each is kept; the operator edits any field before commit.
func (m *Model) mergeReady(msg mergeLoaded) tea.Cmd {
	switch {
	case msg.err != nil:
		return common.NotifyErr("merge: nothing was changed — " + msg.err.Error())
	case m.overlay != nil || !m.ready() || m.detail.Record.ID != msg.base:
		return nil // the operator moved on while the records loaded
	}
	base := m.detail.Record
	combined := review.Combine(*base, msg.sources...)
	m.overlay = newMergeForm(m, &combined, append([]review.Record{*base}, msg.sources...), msg.with, msg.seen)
	return form.LoadEnvNames(m.deps.Service)
}

// decide commits req (the service catches the index up).
func (m *Model) decide(req review.RecordRequest) tea.Cmd {
	req.Operator = m.deps.Operator
	form.TakeNote(&req.Note, &m.note) // N's note rides on this verb
	m.busy = fmt.Sprintf("%s %s…", req.Verb, strings.Join(req.IDs, ", "))
	svc, deps := m.deps.Service, m.deps
	return func() tea.Msg {
		dec, err := svc.DecideRecords(context.Background(), req)
		if err == nil {
			deps.Logf("bank: %s %v: %s", req.Verb, req.IDs, dec.ID)
		}
		return written{verb: req.Verb, dec: dec, err: err}
	}
}

// changedFrom names this screen in the common.BankChanged it sends.
const changedFrom = "bank"

// written shows a committed (or failed) write and reloads what it changed.
// A conflict (a record changed since the screen showed it) reloads too, so
// the operator sees what changed before trying again.
func (m *Model) written(msg written) tea.Cmd {
	m.busy = ""
	var ce *review.ConflictError
	switch {
	case msg.verb == review.Undo && msg.err != nil:
		if strings.Contains(msg.err.Error(), "already undone") {
			m.undos.Drop(msg.undo) // undone elsewhere: u goes on to the one before
		}
		return common.NotifyErr(common.UndoFailed(msg.err))
	case errors.As(msg.err, &ce):
		return tea.Batch(m.refresh(), common.NotifyErr(fmt.Sprintf("%s: nothing was changed — %v", msg.verb, msg.err)))
	case msg.err != nil:
		return common.NotifyErr(fmt.Sprintf("%s failed, nothing was changed: %v", msg.verb, msg.err))
	}
	if msg.verb == review.Merge {
		m.marks = map[string]int{}
	}
	if msg.verb == review.Undo {
		m.undos.Drop(msg.dec.Undoes)
	} else {
		m.undos.Push(msg.dec.ID)
	}
	return tea.Batch(m.refresh(), common.Notify(summary(msg.verb, msg.dec)), common.Changed(changedFrom))
}

// refresh runs the current query again, keeping the cursor, and reloads
// every record shown. The detail shown stays, its keys live, until its
// reload is in: a key pressed meanwhile acts on it rather than being lost
// (a write to an older version is refused by the store as a conflict).
func (m *Model) refresh() tea.Cmd {
	m.resetCache()
	m.reloadDetail = true
	return m.research()
}

// summary says what a committed write did: "edit → mem_3 v2".
func summary(verb review.Verb, d *review.Decision) string {
	s := string(verb) + " " + d.ID
	if verb == review.Undo {
		s = "undid " + d.Undoes
	}
	return common.DecisionSummary(s, d)
}

// verify re-runs the selected record's checks live and stores the results,
// as `memreview verify` does. The results are for the version shown: the
// service drops them when the record has moved on by the time they are in.
func (m *Model) verify() tea.Cmd {
	r := m.detail.Record
	id, version, svc := r.ID, r.Version, m.deps.Service
	m.busy = "verifying " + id + "…"
	return func() tea.Msg {
		v, err := svc.VerifyRecord(context.Background(), id, version)
		return verified{id: id, version: version, results: v.Results, stale: v.Stale, err: err}
	}
}

func (m *Model) verified(msg verified) tea.Cmd {
	m.busy = ""
	switch {
	case msg.err != nil:
		return common.NotifyErr("verify " + msg.id + " failed: " + msg.err.Error())
	case msg.stale:
		return tea.Batch(m.refresh(), common.NotifyErr(fmt.Sprintf(
			"verify %s: the record changed from v%d while its checks ran, so the results were not kept; press v to verify it again", msg.id, msg.version)))
	}
	held, failed, unbased := 0, 0, 0
	for _, c := range msg.results {
		switch {
		case review.Holds(c.Verdict):
			held++
		case review.Fails(c.Verdict):
			failed++
		default:
			unbased++
		}
	}
	note := fmt.Sprintf("verified %s: %d of %d checks hold", msg.id, held, len(msg.results))
	if unbased > 0 {
		note += fmt.Sprintf(", %d had no baseline to compare with (b takes the result now as one)", unbased)
	}
	if m.ready() && m.detail.Record.ID == msg.id && m.detail.Record.Version == msg.version {
		m.detail.Checks = msg.results
		m.detail.Record.Suspect = failed > 0
		m.recs[msg.id] = m.detail.Record
		m.renderDetail()
	}
	if failed > 0 {
		return common.NotifyErr(note + "; the record is suspect")
	}
	return common.Notify(note)
}

// confirmDelete asks before retiring a record, at the version the screen
// showed: one changed since is a conflict, not retired unseen.
type confirmDelete struct {
	common.Question
	id      string
	version int
}

func (c *confirmDelete) Update(m *Model, msg tea.KeyMsg) (overlay, tea.Cmd) {
	switch common.AnswerKey(m.Keys, msg, m.busy != "") {
	case common.AnswerYes:
		return nil, m.decide(review.RecordRequest{Verb: review.Delete, IDs: []string{c.id}, Seen: map[string]int{c.id: c.version}})
	case common.AnswerNo:
		return nil, nil
	}
	return c, nil
}

func (c *confirmDelete) View(m *Model, w, h int) string {
	inner := common.OverlayInner(m.Styles, w)
	q := fmt.Sprintf("Delete: retire %s? It stays in the history and u undoes it. y/n", c.id)
	return common.OverlayBox(m.Styles, m.Styles.Title.Render(common.Wrap(q, inner)), w, h)
}
