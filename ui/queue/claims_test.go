package queue

import (
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// TestClaimedMeanwhileMovesOn: alice claims the next proposal after the
// queue loaded; moving onto it (]), the screen's claim fails, it says who is
// reviewing it and shows the one after.
func TestClaimedMeanwhileMovesOn(t *testing.T) {
	t.Parallel()
	m, b, q := openClaimQueue(t)
	if _, err := b.Claim(q[1].ID, "alice", review.ClaimTTL); err != nil {
		t.Fatal(err)
	}
	_, cmd := m.Update(uitest.Key("]"))
	var notice string
	for _, msg := range uitest.Drain(t, m, cmd) {
		if s, ok := msg.(common.Status); ok {
			notice += s.Text
		}
	}
	if want := "being reviewed by alice"; !strings.Contains(notice, want) {
		t.Errorf("notice %q does not say %q", notice, want)
	}
	if !m.ready() || m.cur.P.ID != q[2].ID {
		t.Fatalf("shown %v, want %s", m.current(), q[2].ID)
	}
	if got := uitest.ClaimsOf(t, b, "tester"); !slices.Equal(got, []string{q[2].ID}) {
		t.Errorf("tester holds %v, want [%s]", got, q[2].ID)
	}
	if title := m.Title(); !strings.Contains(title, "1 being reviewed by others") {
		t.Errorf("title %q does not count alice's claim", title)
	}
}

// TestQuitWhileClaiming: a claim still in flight when the program quits
// (its Cmd runs after the release on quitting, its message never read)
// claims nothing; before the gate it landed and stayed until its TTL.
func TestQuitWhileClaiming(t *testing.T) {
	t.Parallel()
	m, b, _ := openClaimQueue(t)
	_, move := m.Update(uitest.Key("]")) // releases q[0], claims q[1]: held back
	_, quit := m.Update(common.Quitting{})
	runOnly(quit)
	runOnly(move) // the program has quit: nothing reads what these return
	if got := uitest.ClaimsOf(t, b, "tester"); len(got) != 0 {
		t.Errorf("after quitting tester holds %v, want none", got)
	}
}

// openClaimQueue opens the queue screen on uitest.ClaimWorld, its first
// proposal shown (and claimed).
func openClaimQueue(t *testing.T) (*Model, app.Store, []review.Proposal) {
	t.Helper()
	deps, b, q := uitest.ClaimWorld(t)
	m := New(common.NewCommon(), deps).(*Model)
	m.SetSize(200, 50)
	settle(t, m, m.Init())
	if !m.ready() || m.cur.P.ID != q[0].ID {
		t.Fatal("the first proposal did not load")
	}
	return m, b, q
}

// runOnly runs cmd and the Cmds of any batch it returns, without handing
// their messages to a model.
func runOnly(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	if batch, ok := cmd().(tea.BatchMsg); ok {
		for _, c := range batch {
			runOnly(c)
		}
	}
}
