package ui

import (
	"fmt"
	"runtime/debug"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/ui/common"
)

// Bubble Tea recovers a panic in Update or View and restores the terminal,
// but a panic in a Cmd's goroutine kills the process with the terminal left
// in the alternate screen. So every Cmd the root hands the program is
// wrapped: a panic in it is logged with its stack and becomes an error in
// the footer, and the program goes on.

// safe wraps cmd (and, once it runs, every Cmd of a batch it returns) so
// that a panic becomes a logged error message.
func safe(cmd tea.Cmd, logf func(string, ...any)) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() (msg tea.Msg) {
		defer func() {
			if v := recover(); v != nil {
				logf("panic in a background task: %v\n%s", v, debug.Stack())
				msg = common.Status{Err: true, Text: fmt.Sprintf(
					"internal error in a background task (%v); nothing else was affected — the stack is in memreview.log", v)}
			}
		}()
		msg = cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			wrapped := make(tea.BatchMsg, len(b))
			for i, c := range b {
				wrapped[i] = safe(c, logf)
			}
			return wrapped
		}
		return msg
	}
}
