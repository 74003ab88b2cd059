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
	note, done, cmd := f.UpdateNote(m.Keys, msg)
	if done {
		m.note = note
		return nil, cmd
	}
	return f, cmd
}

func (f *noteForm) view(m *Model, w, h int) string {
	st := m.Styles
	inner := w - st.Overlay.GetHorizontalFrameSize()
	return box(m, st.Title.Render(m.wrapped(form.NoteTitle, inner))+"\n\n"+f.View(st), w, h)
}

func (f *noteForm) help(k common.KeyMap) []key.Binding { return f.Help(k) }

func (f *noteForm) capturing() bool { return true }
