package queue

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// A reload for a change made elsewhere that lands after the operator moved
// on keeps them where they are now, not where they were when it began.
func TestReloadLandingAfterAMoveKeepsThePosition(t *testing.T) {
	m := loaded(t)
	first := m.current().ID
	_, reload := m.Update(common.QueueChanged{})
	if reload == nil {
		t.Fatal("a change elsewhere started no reload")
	}
	_, show := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("]")})
	second := m.current().ID
	if second == first {
		t.Fatalf("] did not move on from %s", first)
	}
	settle(t, m, reload)
	settle(t, m, show)
	if got := m.current().ID; got != second {
		t.Fatalf("after the reload landed the screen shows %s, want %s (where the operator moved); it was on %s when the reload began", got, second, first)
	}
	if !m.ready() || m.cur.P.ID != second {
		t.Fatalf("the panes show %v, want %s", m.cur, second)
	}
}

// The queue list opens with its cursor on the proposal under review.
func TestQueueListOpensOnTheProposalShown(t *testing.T) {
	m := loaded(t)
	settle(t, m, func() tea.Msg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("]")} })
	settle(t, m, func() tea.Msg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("]")} })
	want := m.current().ID
	settle(t, m, func() tea.Msg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("L")} })
	if !m.listOn || m.list.cursorID() != want {
		t.Fatalf("the list opened (%v) on %q, want %s, the proposal under review", m.listOn, m.list.cursorID(), want)
	}
}

// A change elsewhere (the watcher's BankChanged) that arrives while the
// reload after this screen's defer is in flight replaces that reload; the
// replacement still moves on from the deferred proposal, which has gone to
// the queue's end — it does not stay on it because it was on screen when
// the change arrived.
func TestChangeDuringADecisionsReloadMovesOn(t *testing.T) {
	t.Parallel()
	m := loaded(t)
	deferred := m.current().ID
	if m.pos+1 >= len(m.queue) {
		t.Fatalf("%s is the last proposal", deferred)
	}
	next := m.queue[m.pos+1].ID
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("s")})
	var dec *decided
	for _, msg := range uitest.Run(cmd) {
		if d, ok := msg.(decided); ok {
			dec = &d
		}
	}
	if dec == nil || dec.err != nil {
		t.Fatalf("s made no decision: %+v", dec)
	}
	_, afterDecision := m.Update(*dec)
	_, afterChange := m.Update(common.BankChanged{From: "watch"})
	settle(t, m, afterDecision) // superseded: dropped
	settle(t, m, afterChange)
	if got := m.current().ID; got != next {
		t.Fatalf("after the defer and a change elsewhere the screen shows %s, want %s (the next; %s went to the end)", got, next, deferred)
	}
}
