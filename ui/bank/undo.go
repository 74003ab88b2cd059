package bank

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/form"
)

// u on the bank screen undoes the newest decision made on this screen
// this session (common.Undos). With none left it does not reach for the
// review screen's or another process's decision unasked: it names the
// decision an undo would reverse and asks y/n.

// undoAsked carries the decision an undo would reverse, for the question.
type undoAsked struct {
	dec *review.Decision
	err error
}

// undo is u (common.Undos.Undo).
func (m *Model) undo() tea.Cmd {
	return m.undos.Undo(m.deps, m.UndoID, func(d *review.Decision, err error) tea.Msg { return undoAsked{d, err} })
}

func (m *Model) undoAsked(msg undoAsked) tea.Cmd {
	if msg.err != nil {
		return common.NotifyErr(common.UndoFailed(msg.err))
	}
	if m.overlay == nil {
		m.overlay = &common.ConfirmUndo[*Model]{Dec: msg.dec, Screen: "bank"}
	}
	return nil
}

// UndoID reverses decision id.
func (m *Model) UndoID(id string) tea.Cmd {
	m.busy = "undoing " + id + "…"
	var note string
	form.TakeNote(&note, &m.note)
	return common.RunUndo(m.deps, "bank", id, note, func(dec *review.Decision, err error) tea.Msg {
		return written{verb: review.Undo, dec: dec, err: err, undo: id}
	})
}

// Writing reports whether the screen is still writing a decision (an
// undo's y waits for it).
func (m *Model) Writing() bool { return m.busy != "" }
