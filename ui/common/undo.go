package common

import (
	"context"
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
)

// Undos are the decisions one screen made this session, oldest first:
// the screen's u undoes the newest of them, never another screen's or
// another process's decision unasked. With none left, the screen names
// the decision an undo would reverse (UndoQuestion) and asks.
type Undos struct{ ids []string }

// Push records a decision the screen made.
func (u *Undos) Push(id string) {
	if id != "" {
		u.ids = append(u.ids, id)
	}
}

// Last is the newest decision the screen made and has not undone; "" when none.
func (u *Undos) Last() string {
	if len(u.ids) == 0 {
		return ""
	}
	return u.ids[len(u.ids)-1]
}

// Drop forgets a decision: it was undone, here or elsewhere.
func (u *Undos) Drop(id string) {
	u.ids = slices.DeleteFunc(u.ids, func(x string) bool { return x == id })
}

// UndoQuestion asks before undoing d, a decision this screen did not
// make: "Undo dec_0005 (defer prop_0003 by ana, 2026-04-01 09:00)? It was
// not made on this screen. y/n".
func UndoQuestion(d *review.Decision, screen string) string {
	what := string(d.Verb)
	if d.Proposal != "" {
		what += " " + d.Proposal
	} else {
		var ids []string
		for _, c := range d.Changes {
			ids = append(ids, c.RecordID)
		}
		what += " " + strings.Join(ids, ", ")
	}
	return fmt.Sprintf("Undo %s (%s by %s, %s)? It was not made on the %s screen this session. y/n",
		d.ID, strings.TrimSpace(what), d.Operator, d.At.UTC().Format("2006-01-02 15:04"), screen)
}

// Undo is a screen's u: it undoes the screen's newest decision (run), or,
// with none left, reads the bank's latest undoable one for the screen to
// ask about (asked makes the screen's own message of it, so that only
// that screen asks).
func (u *Undos) Undo(deps Deps, run func(id string) tea.Cmd, asked func(*review.Decision, error) tea.Msg) tea.Cmd {
	if id := u.Last(); id != "" {
		return run(id)
	}
	svc := deps.Service
	return func() tea.Msg { return asked(svc.LastUndoable()) }
}

// RunUndo reverses decision id as the operator, with note, logged under
// screen; done makes the screen's message of the result.
func RunUndo(deps Deps, screen, id, note string, done func(dec *review.Decision, err error) tea.Msg) tea.Cmd {
	svc := deps.Service
	return func() tea.Msg {
		dec, err := svc.Undo(context.Background(), id, deps.Operator, note)
		if err == nil {
			deps.Logf("%s: undid %s: %s", screen, dec.Undoes, dec.ID)
		} else {
			deps.Logf("%s: undo %s: %v", screen, id, err)
		}
		return done(dec, err)
	}
}

// UndoScreen is what ConfirmUndo needs of a screen's model: its keys and
// styles, whether it is still writing, and how it reverses a decision.
type UndoScreen interface {
	Base() *Common
	Writing() bool
	UndoID(id string) tea.Cmd
}

// ConfirmUndo is the overlay that asks before undoing Dec, a decision
// the screen (Screen: "bank", "review") did not make: y reverses it
// (UndoID) once the screen is not writing, n and esc close it.
type ConfirmUndo[M UndoScreen] struct {
	Question
	Dec    *review.Decision
	Screen string
}

func (c *ConfirmUndo[M]) Update(m M, msg tea.KeyMsg) (Overlay[M], tea.Cmd) {
	switch AnswerKey(m.Base().Keys, msg, m.Writing()) {
	case AnswerYes:
		return nil, m.UndoID(c.Dec.ID)
	case AnswerNo:
		return nil, Notify("nothing was undone")
	}
	return c, nil
}

func (c *ConfirmUndo[M]) View(m M, w, h int) string {
	st := m.Base().Styles
	return OverlayBox(st, st.Title.Render(Wrap(UndoQuestion(c.Dec, c.Screen), OverlayInner(st, w))), w, h)
}
