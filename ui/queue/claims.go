package queue

import (
	"errors"
	"fmt"
	"sync"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
)

// Claims: showing a proposal claims it for the operator (review.ClaimTTL),
// renewed every ClaimTTL/3 while it stays on screen; moving to another
// proposal, deciding it or quitting releases it. The queue steps over the
// proposals someone else holds a live claim on (review.Unclaimed) and the
// title says how many ("2 being reviewed by others"). Every store call
// runs in a tea.Cmd.

// claimRenewEvery is how often the claim on the shown proposal is renewed.
const claimRenewEvery = review.ClaimTTL / 3

// claimState is what the screen knows about claims.
type claimState struct {
	held    string            // the proposal this screen holds a claim on; "" for none
	others  map[string]bool   // proposals others held a live claim on at the last load
	holders map[string]string // who holds each of others (the queue list shows them)
	hidden  int               // how many of the loaded queue others hold
	gen     int               // bumped on every claim taken, so stale renewals drop
	gate    claimGate         // orders a claim in flight before the release on quitting
}

// claimGate orders the claims in flight before the last release: a Cmd
// that claims holds mu while it does, and the release on quitting takes
// mu, marks the screen closed and releases, so a claim that started first
// is given back after it lands, and one that starts after claims nothing.
// Without it a claim still in flight when q was pressed could land after
// the release and stay until its TTL ran out (seen in .ci/run under load:
// TestClaimsInTheQueue).
type claimGate struct {
	mu     sync.Mutex
	closed bool
}

// errClosed is a claim's outcome once the screen has quit.
var errClosed = errors.New("the screen has quit")

// claimed is a claim's outcome.
type claimed struct {
	pid string
	gen int
	err error
}

// renewClaim asks to renew the claim of generation gen on pid.
type renewClaim struct {
	pid string
	gen int
}

// claimStore is where claims live: the service;
// nil when there is neither or no operator to claim for.
func (m *Model) claimStore() review.ClaimStore {
	if m.deps.Operator == "" || m.deps.Service == nil {
		return nil
	}
	return m.deps.Service
}

// readClaims returns the live claims for a queue load (nil without a
// claim store; an error there only leaves the queue unfiltered).
func readClaims(cs review.ClaimStore) []review.Claim {
	if cs == nil {
		return nil
	}
	claims, _ := cs.Claims()
	return claims
}

// setClaims records the claims that came with a queue load.
func (m *Model) setClaims(claims []review.Claim) {
	m.claim.others, m.claim.holders = map[string]bool{}, map[string]string{}
	for _, c := range claims {
		if c.Operator != m.deps.Operator {
			m.claim.others[c.Proposal] = true
			m.claim.holders[c.Proposal] = c.Operator
		}
	}
}

// claimedByOther reports whether someone else holds p, counting it in the
// title when so; applyFilter calls it once per loaded proposal after
// resetClaimCount.
func (m *Model) claimedByOther(p *review.Proposal) bool {
	if !m.claim.others[p.ID] {
		return false
	}
	m.claim.hidden++
	return true
}

func (m *Model) resetClaimCount() { m.claim.hidden = 0 }

// claimsTitle is the title's part about others' claims.
func (m *Model) claimsTitle() string {
	if m.claim.hidden == 0 {
		return ""
	}
	return fmt.Sprintf(" · %d being reviewed by others", m.claim.hidden)
}

// followClaim makes the claim follow the shown proposal: it releases the
// one held when another (or none) is shown and claims the shown one.
func (m *Model) followClaim() tea.Cmd {
	cs := m.claimStore()
	p := m.current()
	if cs == nil || (p != nil && p.ID == m.claim.held) {
		return nil
	}
	release := m.releaseClaim(false)
	if p == nil {
		return release
	}
	m.claim.held = p.ID
	return tea.Batch(release, m.takeClaim(p.ID))
}

// takeClaim claims (or renews) pid in a Cmd.
func (m *Model) takeClaim(pid string) tea.Cmd {
	m.claim.gen++
	cs, op, gen, logf, gate := m.claimStore(), m.deps.Operator, m.claim.gen, m.deps.Logf, &m.claim.gate
	return func() tea.Msg {
		gate.mu.Lock()
		defer gate.mu.Unlock()
		if gate.closed {
			return claimed{pid: pid, gen: gen, err: errClosed}
		}
		_, err := cs.Claim(pid, op, review.ClaimTTL)
		if err != nil {
			logf("claim %s: %v", pid, err)
		}
		return claimed{pid: pid, gen: gen, err: err}
	}
}

// releaseClaim gives up the claim held, if any, in a Cmd; when quitting
// it also closes the gate (claimGate), so it is the last claim store call
// this screen makes.
func (m *Model) releaseClaim(quitting bool) tea.Cmd {
	cs, pid, op, logf, gate := m.claimStore(), m.claim.held, m.deps.Operator, m.deps.Logf, &m.claim.gate
	m.claim.held = ""
	if cs == nil || pid == "" && !quitting {
		return nil
	}
	return func() tea.Msg {
		gate.mu.Lock()
		defer gate.mu.Unlock()
		gate.closed = gate.closed || quitting
		if pid != "" {
			if err := cs.Release(pid, op); err != nil {
				logf("release the claim on %s: %v", pid, err)
			}
		}
		return nil
	}
}

// updateClaims handles the claim messages; ok is false for any other.
func (m *Model) updateClaims(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case claimed:
		return m.claimedMsg(msg), true
	case renewClaim:
		if msg.gen != m.claim.gen || msg.pid != m.claim.held {
			return nil, true // moved on since
		}
		return m.takeClaim(msg.pid), true
	case common.Quitting:
		return m.releaseClaim(true), true
	}
	return nil, false
}

func (m *Model) claimedMsg(msg claimed) tea.Cmd {
	if msg.pid != m.claim.held {
		// Moved on while it was claimed (or renewed after the release ran):
		// give it back, or it stays claimed until it expires.
		if msg.err != nil {
			return nil
		}
		cs, op := m.claimStore(), m.deps.Operator
		return func() tea.Msg { cs.Release(msg.pid, op); return nil }
	}
	if msg.gen != m.claim.gen {
		return nil // a newer claim or renewal is in flight
	}
	var ce *review.ClaimedError
	switch {
	case errors.As(msg.err, &ce):
		// Someone else took it first: say so and step over it.
		m.claim.held = ""
		if m.claim.others == nil {
			m.claim.others = map[string]bool{}
		}
		m.claim.others[msg.pid] = true
		if m.claim.holders == nil {
			m.claim.holders = map[string]string{}
		}
		m.claim.holders[msg.pid] = ce.Claim.Operator
		m.applyFilter()
		return tea.Batch(common.Notify(ce.Error()), m.show())
	case msg.err != nil:
		return nil // decided elsewhere, or the store failed (logged): the reloads handle it
	}
	return common.Heartbeat(claimRenewEvery, renewClaim{pid: msg.pid, gen: msg.gen})
}
