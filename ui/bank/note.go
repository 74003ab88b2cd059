package bank

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/form"
)

// N on the bank screen, as on the review screen (form.NoteForm): a note
// that the next verb (edit, narrow, merge, delete, re-baseline, undo)
// carries into its audit entry and the record's history. The title shows
// it until then.

type noteForm struct{ *form.NoteForm }

func newNoteForm(m *Model) *noteForm {
	return &noteForm{form.NewNoteForm(m.note, max(m.Width-m.Styles.Overlay.GetHorizontalFrameSize(), 1))}
}

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
	f.SetWidth(inner) // a no-op unless the width changed
	return box(m, st.Title.Render(common.Wrap(form.NoteTitle, inner))+"\n\n"+f.View(st), w, h)
}

func (f *noteForm) help(m *Model) []key.Binding {
	k := m.Keys
	k.Confirm.SetHelp("enter", "apply")
	return f.Help(k)
}

func (f *noteForm) capturing() bool { return true }
