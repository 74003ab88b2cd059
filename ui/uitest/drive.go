package uitest

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/ui/common"
)

// Drive feeds msg to update and runs the Cmds it returns synchronously,
// feeding their messages back as the program would, until none is left.
// Batches are flattened. Timers are recognised by type (common.Delayed):
// a heartbeat (spinner frame, status expiry) is dropped, any other timer
// (a debounce) fires at once; a wait for the outside world
// (common.Awaiting: the bank's next change) is dropped too. It returns every message it saw
// but the timers, in order, and fails the test on a chain of more than
// 10,000 Cmds. (tea.Sequence is not used by the program; its message would
// be fed to update as is.)
func Drive(tb testing.TB, update func(tea.Msg) tea.Cmd, msg tea.Msg) []tea.Msg {
	tb.Helper()
	var seen []tea.Msg
	msgs := []tea.Msg{msg}
	for n := 0; len(msgs) > 0; n++ {
		if n > 10000 {
			tb.Fatal("Drive: runaway commands")
		}
		msg, msgs = msgs[0], msgs[1:]
		switch m := msg.(type) {
		case nil:
			continue
		case common.Delayed:
			if !m.Heartbeat {
				msgs = append(msgs, m.Msg)
			}
			continue
		case common.Awaiting:
			continue // it waits for the outside world (the bank's next change)
		}
		seen = append(seen, msg)
		msgs = append(msgs, Run(update(msg))...)
	}
	return seen
}

// Run runs cmd and returns the messages it yields, batches flattened.
func Run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, Run(c)...)
		}
		return out
	}
	if msg == nil {
		return nil
	}
	return []tea.Msg{msg}
}

// DriveModel is Drive for a tea.Model (the root): it returns the model
// after msg and everything it led to.
func DriveModel(tb testing.TB, m tea.Model, msg tea.Msg) tea.Model {
	tb.Helper()
	Drive(tb, func(msg tea.Msg) tea.Cmd {
		var cmd tea.Cmd
		m, cmd = m.Update(msg)
		return cmd
	}, msg)
	return m
}

// Drain runs cmd and feeds every message it yields back into screen s
// (Drive), but for Status messages, which the root keeps. It returns every
// message it saw, in order.
func Drain(tb testing.TB, s common.Screen, cmd tea.Cmd) []tea.Msg {
	tb.Helper()
	var seen []tea.Msg
	for _, msg := range Run(cmd) {
		seen = append(seen, Drive(tb, func(msg tea.Msg) tea.Cmd {
			if _, ok := msg.(common.Status); ok {
				return nil
			}
			_, next := s.Update(msg)
			return next
		}, msg)...)
	}
	return seen
}
