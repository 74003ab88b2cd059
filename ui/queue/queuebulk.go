package queue

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
)

// The screen's side of the queue list (queuelist.go): L shows and hides
// it, its keys go to it while it shows, and what it asks for runs here —
// enter reviews a proposal in the panes, y on its question decides each
// marked proposal through the service, one decision apiece with the
// operator and the N note, in one Cmd.

// bulkDecided is a bulk decision's outcome.
type bulkDecided struct {
	verb    review.Verb
	done    []string // decided
	decs    []string // their decisions' ids
	claimed []string // skipped: another operator holds a live claim ("id (who)")
	flagged []string // left out: the screen flagged them (accepted one at a time)
	failed  []string // "id: why" (decided elsewhere, a store error)
}

// toggleList shows or hides the list.
func (m *Model) toggleList() {
	m.listOn = !m.listOn
	m.list.SetSize(m.Width, m.listHeight())
	if p := m.current(); m.listOn && p != nil {
		m.list.Select(p.ID) // the list opens on the proposal under review
	}
}

// listHeight is the height the list draws in: the screen less the lines
// above the panes but the pane tabs.
func (m *Model) listHeight() int {
	n := 1
	if m.deps.IsSample {
		n++
	}
	return max(m.Height-n, 1)
}

// listKey hands a key to the list and does what it asks.
func (m *Model) listKey(msg tea.KeyMsg) tea.Cmd {
	if key.Matches(msg, m.Keys.Note) && !m.list.Capturing() && m.list.ask == nil {
		m.overlay = newNoteForm(m)
		return nil
	}
	a, cmd := m.list.Update(msg)
	switch a.kind {
	case listClose:
		m.toggleList()
	case listOpen:
		return tea.Batch(cmd, m.openFromList(a.id))
	case listBulk:
		if m.busy != "" || m.settling {
			return tea.Batch(cmd, common.NotifyErr("wait: "+m.busy+" is still in flight"))
		}
		return tea.Batch(cmd, m.bulkDecide(a.verb, a.ids, a.claimed, a.flagged))
	}
	return cmd
}

// openFromList reviews proposal id in the panes: the screen's own filter
// is cleared when it hides id; a proposal someone else holds stays listed.
func (m *Model) openFromList(id string) tea.Cmd {
	if who := m.claim.holders[id]; who != "" {
		return common.NotifyErr(id + " is being reviewed by " + who + "; it stays in the list")
	}
	i := m.queueIndex(id)
	if i < 0 && m.filter != (Filter{}) {
		m.filter = Filter{}
		m.applyFilter()
		i = m.queueIndex(id)
	}
	if i < 0 {
		return common.NotifyErr(id + " is no longer open")
	}
	m.toggleList()
	m.pos = i
	return m.show()
}

func (m *Model) queueIndex(id string) int {
	for i, p := range m.queue {
		if p.ID == id {
			return i
		}
	}
	return -1
}

// bulkDecide decides verb on each of ids in one Cmd: it reads the claims
// first and skips the proposals someone else holds (as the list did for
// claimed, when it asked), then commits one decision per proposal, each
// with the operator and the note.
func (m *Model) bulkDecide(verb review.Verb, ids, claimed, flagged []string) tea.Cmd {
	note := m.note
	m.note = ""
	m.busy = fmt.Sprintf("%s %d proposals…", verbDoing[verb], len(ids))
	svc, cs, op, logf := m.deps.Service, m.claimStore(), m.deps.Operator, m.deps.Logf
	return func() tea.Msg {
		res := bulkDecided{verb: verb, claimed: claimed, flagged: flagged}
		held := map[string]string{}
		for _, c := range readClaims(cs) {
			if c.Operator != op {
				held[c.Proposal] = c.Operator
			}
		}
		for _, id := range ids {
			if who := held[id]; who != "" {
				res.claimed = append(res.claimed, id+" ("+who+")")
				continue
			}
			dec, err := svc.Decide(context.Background(), review.DecideRequest{Proposal: id, Verb: verb, Operator: op, Note: note})
			var ce *review.ConflictError
			var fe *review.FlaggedError
			switch {
			case errors.As(err, &fe): // screened again since the list loaded
				res.flagged = append(res.flagged, id)
				continue
			case errors.As(err, &ce):
				res.failed = append(res.failed, id+": "+ce.Error())
			case err != nil:
				res.failed = append(res.failed, id+": "+err.Error())
			default:
				res.done = append(res.done, id)
				res.decs = append(res.decs, dec.ID)
				logf("decided %s: %s %s (bulk)", id, verb, dec.ID)
				continue
			}
			logf("bulk %s %s: %v", verb, id, err)
		}
		return res
	}
}

// bulkDone takes a bulk decision's outcome: the decided proposals count
// for this session, the marks on them go, and the footer says what was
// decided, skipped and failed.
func (m *Model) bulkDone(msg bulkDecided) tea.Cmd {
	m.busy = ""
	if m.session == nil {
		m.session = map[string]bool{}
	}
	for _, id := range msg.done {
		m.session[id] = true
		delete(m.list.marks, id)
	}
	for _, id := range msg.decs {
		m.undos.Push(id)
	}
	total := len(msg.done) + len(msg.claimed) + len(msg.failed) + len(msg.flagged)
	text := fmt.Sprintf("%s %d of %d marked", verbDone[msg.verb], len(msg.done), total)
	if len(msg.claimed) > 0 {
		text += " · skipped, being reviewed by others: " + strings.Join(msg.claimed, ", ")
	}
	if n := len(msg.flagged); n > 0 {
		text += fmt.Sprintf(" · %d left out, flagged by the screen (accept each on its own, after its y/n): %s", n, strings.Join(msg.flagged, ", "))
	}
	notify := common.Notify(text)
	if len(msg.failed) > 0 {
		notify = common.NotifyErr(text + " · failed: " + strings.Join(msg.failed, "; "))
	}
	// The reload stays on the proposal shown when it lands (one the bulk
	// decided has left the queue: then on its position).
	if len(msg.done) == 0 {
		return tea.Batch(notify, m.reloadQueue(keepCurrent))
	}
	return tea.Batch(notify, m.settle(keepCurrent), common.Changed(changedFrom))
}
