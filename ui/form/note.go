package form

import (
	tea "github.com/charmbracelet/bubbletea"
	"github.com/memreview/memreview/ui/common"
)

// N on a screen with verbs (the review screen, the bank): a note for the
// screen's next decision. The screen keeps the note (shown in its header)
// until a verb takes it (TakeNote) into the decision's audit entry, so that
// history, show, exports and proposal_status say why; esc in the form
// clears it.

// NoteTitle is the note form's title.
const NoteTitle = "Note for the next decision: why (kept in its audit entry, history and exports)"

// NoteForm is the one-field form N opens.
type NoteForm struct {
	*Form
	title      string // NoteTitle wrapped at titleWidth
	titleWidth int
}

// NewNoteForm opens the form on the note kept so far, width wide.
func NewNoteForm(note string, width int) *NoteForm {
	f := &NoteForm{Form: NewForm([]string{"note"}, []string{note})}
	f.SetWidth(width)
	return f
}

// UpdateNote handles a key. When the form closes, done is true, *note is
// the screen's note from then on ("" when cleared), and cmd says so.
func (f *NoteForm) UpdateNote(k common.KeyMap, msg tea.KeyMsg, note *string) (done bool, cmd tea.Cmd) {
	res, cmd := f.Update(k, msg)
	switch res {
	case FormCancel:
		*note = ""
		return true, common.Notify("note cleared")
	case FormApply:
		if *note = f.Values()[0]; *note == "" {
			return true, common.Notify("note cleared")
		}
		return true, common.Notify("note kept for the next decision")
	}
	return false, cmd
}

// Body is the form under its title, fitted to inner width inner (the
// overlay's box goes round it); the title is wrapped once per width.
func (f *NoteForm) Body(st *common.Styles, inner int) string {
	f.SetWidth(inner) // a no-op unless the width changed
	if f.title == "" || f.titleWidth != inner {
		f.title, f.titleWidth = common.Wrap(NoteTitle, inner), inner
	}
	return st.Title.Render(f.title) + "\n\n" + f.View(st)
}

// TakeNote gives a decision's note the screen's kept note, when the
// decision has none of its own, and clears the kept one: it rides on one
// verb only.
func TakeNote(decision, kept *string) {
	if *decision == "" {
		*decision, *kept = *kept, ""
	}
}
