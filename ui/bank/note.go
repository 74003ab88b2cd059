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

func (f *noteForm) Update(m *Model, msg tea.KeyMsg) (overlay, tea.Cmd) {
	done, cmd := f.UpdateNote(m.Keys, msg, &m.note)
	if done {
		return nil, cmd
	}
	return f, cmd
}

func (f *noteForm) View(m *Model, w, h int) string {
	return common.OverlayBox(m.Styles, f.Body(m.Styles, common.OverlayInner(m.Styles, w)), w, h)
}

func (f *noteForm) Help(k common.KeyMap) []key.Binding { return f.NoteForm.Help(k) } // enter is "apply" by default

func (f *noteForm) Capturing() bool { return true }
