package common

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// Delayed asks the root to deliver Msg after After. No screen sleeps in a
// Cmd: a timer is this message, which the root turns into tea.Tick, so that
// tests recognise timers by type and fire them at once (a debounce) or drop
// them (Heartbeat: a spinner frame, a status expiry, the change poll)
// instead of waiting them out.
type Delayed struct {
	After     time.Duration
	Msg       tea.Msg
	Heartbeat bool // only redraws, expires or polls; a test may drop it
}

// After returns a Cmd that delivers msg after d, once (a debounce).
func After(d time.Duration, msg tea.Msg) tea.Cmd {
	return func() tea.Msg { return Delayed{After: d, Msg: msg} }
}

// Heartbeat returns a Cmd that delivers msg after d and that only moves a
// spinner, expires a message or polls for changes.
func Heartbeat(d time.Duration, msg tea.Msg) tea.Cmd {
	return func() tea.Msg { return Delayed{After: d, Msg: msg, Heartbeat: true} }
}

// Timer turns a Delayed into the tea.Tick that delivers it.
func (d Delayed) Timer() tea.Cmd {
	msg := d.Msg
	return tea.Tick(d.After, func(time.Time) tea.Msg { return msg })
}

// Awaiting asks the root to run Cmd, which waits for something outside the
// program (the bank's next change): the root runs it as any Cmd, and
// tests, which drive the program one message at a time, drop it as they
// drop a heartbeat.
type Awaiting struct{ Cmd tea.Cmd }

// Await returns a Cmd that hands cmd to the root as Awaiting.
func Await(cmd tea.Cmd) tea.Cmd {
	return func() tea.Msg { return Awaiting{Cmd: cmd} }
}
