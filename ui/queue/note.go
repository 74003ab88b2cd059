package queue

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/form"
)

// N on the review screen: form.NoteForm sets Model.note, which rides on
// whichever verb comes next (accept, reject, defer, narrow, edit, merge,
// delete, undo); the proposal line shows it until then, and moving to
// another proposal keeps it.

type noteForm struct{ *form.NoteForm }

func newNoteForm(m *Model) *noteForm {
	return &noteForm{form.NewNoteForm(m.note, m.overlayInner())}
}

func (f *noteForm) setWidth(inner int) { f.SetWidth(inner) }

func (f *noteForm) update(m *Model, msg tea.KeyMsg) (overlay, tea.Cmd) {
	done, cmd := f.UpdateNote(m.Keys, msg, &m.note)
	if done {
		return nil, cmd
	}
	return f, cmd
}

func (f *noteForm) view(m *Model, w, h int) string {
	return box(m, f.Body(m.Styles, w-m.Styles.Overlay.GetHorizontalFrameSize()), w, h)
}

func (f *noteForm) help(k common.KeyMap) []key.Binding { return f.Help(k) }

func (f *noteForm) capturing() bool { return true }
