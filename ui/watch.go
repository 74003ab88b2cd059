package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
)

// Live changes: the root follows the service's change follower (one a
// process, which the index owner and the MCP server share) and, when
// another process changed the bank, tells every screen
// (common.BankChanged from "watch": each reloads what it shows, keeping
// the operator's place) and says in the footer what happened to the
// queue: "2 new proposals", "prop_0003 accepted by alice elsewhere".
// Decisions by this program's own operator get no notice (the screen that
// made them said so already).

// watchFrom names the watcher in the BankChanged it broadcasts.
const watchFrom = "watch"

// watching is the subscription to the service's changes, from seq on.
type watching struct {
	ch  <-chan app.ChangeSet
	seq int64
	err error
}

// changesSeen is one change set's outcome: the new sequence number and the
// notice to show ("" for none); changed reports any change worth a reload.
type changesSeen struct {
	to      int64
	changed bool
	notice  string
	// claims is the signature of other operators' claims, read when the
	// change set held only claims ("" otherwise).
	claims string
}

// startWatch subscribes to the bank's changes from the current sequence;
// nil without a service. The subscription ends when the service closes.
func (m *Model) startWatch() tea.Cmd {
	svc := m.deps.Service
	if svc == nil {
		return nil
	}
	return func() tea.Msg {
		seq, err := svc.LastSeq()
		if err != nil {
			return watching{err: err}
		}
		return watching{ch: svc.Watch(context.Background(), seq), seq: seq}
	}
}

// watched keeps the subscription and waits for its first change set.
func (m *Model) watched(msg watching) tea.Cmd {
	if msg.err != nil {
		m.deps.Logf("watch the bank's changes: %v", msg.err)
		return nil
	}
	m.changes, m.seq = msg.ch, msg.seq
	return m.nextChange()
}

// nextChange waits for the next change set and says what it means.
func (m *Model) nextChange() tea.Cmd {
	ch, svc, op, own, lastClaims := m.changes, m.deps.Service, m.deps.Operator, &m.own, m.othersClaims
	if ch == nil {
		return nil
	}
	return common.Await(func() tea.Msg {
		cs, ok := <-ch
		if !ok {
			return nil // the service closed
		}
		// This program's own claims (one each time a proposal is shown,
		// renewed or left) are no reason to reload every screen; other
		// operators' claims are (the queue steps over them).
		if onlyClaims(cs) {
			sig := othersClaims(svc, op)
			return changesSeen{to: cs.To, changed: sig != lastClaims, claims: sig}
		}
		return changesSeen{to: cs.To, changed: true, notice: describe(svc, cs, op, own)}
	})
}

// seen applies a change set and waits for the next.
func (m *Model) seen(msg changesSeen) tea.Cmd {
	m.seq = msg.to
	if msg.claims != "" {
		m.othersClaims = msg.claims
	}
	next := m.nextChange()
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
// program queued itself (own: hygiene's and its curator runs') are not
// news.
func describe(svc *app.Service, cs app.ChangeSet, operator string, own *ownProposals) string {
	var joined int
	var left []string
	for _, c := range cs.Changes {
		if c.Kind != "proposal" || own.has(c.ID) {
			continue
		}
		p, err := svc.Proposal(c.ID)
		if err != nil || p == nil || own.mine(p) {
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
