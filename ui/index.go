package ui

import (
	"fmt"
	"strconv"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/ui/common"
)

// The search index opens in the background (main.go holds it in a
// goroutine): the first frame does not wait for a build or a long catch-up,
// the footer shows how far it has come, and the screens' searches, which
// run in Cmds, wait for it there. Later catch-ups of this process's index
// (another shell's import) report on the same channel.

// indexState is what the root knows of the index being opened, or caught
// up later by this process (an import from another shell, a rebuild).
type indexState struct {
	progress common.IndexProgress
	at       time.Time // when the latest report came
	done     bool      // the channel closed: no more reports
}

// reportTTL is how long a report that did not reach its total stays on the
// footer without a newer one (a build that stopped short of its count).
const reportTTL = 10 * time.Second

// indexMsg is one report from Deps.IndexProgress; ok is false once it closed.
type indexMsg struct {
	p  common.IndexProgress
	ok bool
}

// waitIndex waits for the next report; nil when there is nothing to follow.
func (m *Model) waitIndex() tea.Cmd {
	ch := m.deps.IndexProgress
	if ch == nil || m.index.done {
		return nil
	}
	return func() tea.Msg {
		p, ok := <-ch
		return indexMsg{p: p, ok: ok}
	}
}

func (m *Model) indexUpdate(msg indexMsg) tea.Cmd {
	if !msg.ok {
		m.index.done = true
		return nil
	}
	m.index.progress, m.index.at = msg.p, time.Now()
	return m.waitIndex()
}

// opening reports whether a build or catch-up is under way and has said
// how far it is.
func (m indexState) opening() bool {
	p := m.progress
	return !m.done && p.Total > 0 && p.Done < p.Total && time.Since(m.at) < reportTTL
}

// line is the footer's progress line.
func (m indexState) line() string {
	p := m.progress
	return fmt.Sprintf("building the search index: %s of %s (%d%%); searches read the rest from the bank",
		commas(p.Done), commas(p.Total), min(p.Done*100/max(p.Total, 1), 100))
}

// commas writes n with thousands separators.
func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
