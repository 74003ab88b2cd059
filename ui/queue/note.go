package queue

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/ui/common"
)

// N on the review screen: write a note for the next decision. The note
// rides on whichever verb comes next (accept, reject, defer, narrow, edit,
// merge, delete) into the decision's audit entry, so history, show,
// exports and proposal_status carry why; the proposal line shows it until
// then, and moving to another proposal keeps it (esc in the form clears it).

// noteForm is the one-field form that sets Model.note.
type noteForm struct{ *common.Form }

func newNoteForm(m *Model) *noteForm {
	f := &noteForm{common.NewForm([]string{"note"}, []string{m.note})}
	f.SetWidth(m.overlayInner())
	return f
}

func (f *noteForm) setWidth(inner int) { f.SetWidth(inner) }

func (f *noteForm) update(m *Model, msg tea.KeyMsg) (overlay, tea.Cmd) {
	res, cmd := f.Update(m.Keys, msg)
	switch res {
	case common.FormCancel:
		m.note = ""
		return nil, common.Notify("note cleared")
	case common.FormApply:
		m.note = f.Values()[0]
		if m.note == "" {
			return nil, common.Notify("note cleared")
		}
		return nil, common.Notify("note kept for the next decision")
	}
	return f, cmd
}

func (f *noteForm) view(m *Model, w, h int) string {
	st := m.Styles
	inner := w - st.Overlay.GetHorizontalFrameSize()
	title := "Note for the next decision: why (kept in its audit entry, history and exports)"
	return box(m, st.Title.Render(m.wrapped(title, inner))+"\n\n"+f.View(st), w, h)
}

func (f *noteForm) help(k common.KeyMap) []key.Binding { return f.Help(k) }

func (f *noteForm) capturing() bool { return true }
