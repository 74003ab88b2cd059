package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
)

// Live changes: the root polls the bank's change sequence (one cheap
// query when nothing changed) and, when another process changed the bank,
// tells every screen (common.BankChanged from "watch": each reloads what
// it shows, keeping the operator's place) and says in the footer what
// happened to the queue: "2 new proposals", "prop_0003 accepted by alice
// elsewhere". Decisions by this program's own operator get no notice (the
// screen that made them said so already).

// watchEvery is how often the root polls; a change shows within it plus
// one reload.
const watchEvery = 500 * time.Millisecond

// watchFrom names the watcher in the BankChanged it broadcasts.
const watchFrom = "watch"

// pollTick asks for a poll.
type pollTick struct{}

// changesSeen is one poll's outcome: the new sequence number and the
// notice to show ("" for none); changed reports any change at all.
type changesSeen struct {
	from, to int64
	changed  bool
	notice   string
	err      error
	// claims is the signature of other operators' claims, read when the
	// change set held only claims ("" otherwise).
	claims string
}

// startWatch reads the current sequence number and starts polling; nil
// without a service.
func (m *Model) startWatch() tea.Cmd {
	svc := m.deps.Service
	if svc == nil {
		return nil
	}
	return func() tea.Msg {
		seq, err := svc.LastSeq()
		return changesSeen{from: -1, to: seq, err: err}
	}
}

// poll asks the service what changed after the last sequence seen.
func (m *Model) poll() tea.Cmd {
	svc, from, op, own, lastClaims := m.deps.Service, m.seq, m.deps.Operator, &m.own, m.othersClaims
	return func() tea.Msg {
		cs, err := svc.ChangesSince(from)
		if err != nil || cs.Empty() {
			return changesSeen{from: from, to: from, err: err}
		}
		// This program's own claims (one each time a proposal is shown,
		// renewed or left) are no reason to reload every screen; other
		// operators' claims are (the queue steps over them).
		if onlyClaims(cs) {
			sig := othersClaims(svc, op)
			return changesSeen{from: from, to: cs.To, changed: sig != lastClaims, claims: sig}
		}
		return changesSeen{from: from, to: cs.To, changed: true, notice: describe(svc, cs, op, own)}
	}
}

// seen applies a poll's outcome and schedules the next poll.
func (m *Model) seen(msg changesSeen) tea.Cmd {
	next := common.Heartbeat(watchEvery, pollTick{})
	if msg.err != nil {
		m.deps.Logf("watch the bank's changes: %v", msg.err)
		return next
	}
	if msg.from >= 0 && msg.from != m.seq {
		return nil // an older poll; the newer one scheduled the next
	}
	m.seq = msg.to
	if msg.claims != "" {
		m.othersClaims = msg.claims
	}
	if !msg.changed {
		return next
	}
	cmds := []tea.Cmd{next, m.broadcast(common.BankChanged{From: watchFrom})}
	if msg.notice != "" {
		cmds = append(cmds, m.setStatus(common.Status{Text: msg.notice}))
	}
	return tea.Batch(cmds...)
}

// describe says what a change set did to the queue; proposals this
// program queued itself (own: hygiene's) are not news.
func describe(svc *app.Service, cs app.ChangeSet, operator string, own *ownProposals) string {
	var joined int
	var left []string
	for _, c := range cs.Changes {
		if c.Kind != "proposal" || own.has(c.ID) {
			continue
		}
		p, err := svc.Proposal(c.ID)
		if err != nil || p == nil {
			continue
		}
		if p.Status == review.Pending || p.Status == review.Deferred {
			if ds, _ := svc.ProposalDecisions(c.ID); len(ds) == 0 {
				joined++
			}
			continue
		}
		ds, err := svc.ProposalDecisions(c.ID)
		if err != nil || len(ds) == 0 {
			continue
		}
		d := ds[len(ds)-1]
		if d.Operator == operator {
			continue
		}
		left = append(left, fmt.Sprintf("%s left the queue: %s by %s elsewhere", c.ID, d.Verb, d.Operator))
	}
	var parts []string
	switch joined {
	case 0:
	case 1:
		parts = append(parts, "1 new proposal")
	default:
		parts = append(parts, fmt.Sprintf("%d new proposals", joined))
	}
	parts = append(parts, left...)
	return strings.Join(parts, " · ")
}

// onlyClaims reports whether every change in cs is a claim's.
func onlyClaims(cs app.ChangeSet) bool {
	for _, c := range cs.Changes {
		if c.Kind != "claim" {
			return false
		}
	}
	return len(cs.Changes) > 0
}

// othersClaims is a signature of the live claims of operators other than
// operator ("-" for none, so that it is never empty).
func othersClaims(svc *app.Service, operator string) string {
	claims, err := svc.Claims()
	if err != nil {
		return "?" + err.Error()
	}
	var parts []string
	for _, c := range claims {
		if c.Operator != operator {
			parts = append(parts, c.Proposal+"@"+c.Operator)
		}
	}
	slices.Sort(parts)
	return "-" + strings.Join(parts, ",")
}
