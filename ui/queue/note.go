package queue

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/form"
)

// N on the review screen: form.NoteForm sets Model.note, which rides on
// whichever verb comes next (accept, reject, defer, narrow, edit, merge,
// delete, undo); the proposal line shows it until then, and moving to
// another proposal keeps it. A and R open the same form with a verb to
// apply once it is saved: accept or reject with the note in one step
// (esc decides nothing).

type noteForm struct {
	*form.NoteForm
	pid  string      // then: the proposal the verb decides
	then review.Verb // accept or reject once the note is saved; "" for N
}

func newNoteForm(m *Model) *noteForm {
	return &noteForm{NoteForm: form.NewNoteForm(m.note, m.overlayInner())}
}

// newVerbNote is A or R: the note, then verb on the shown proposal.
func newVerbNote(m *Model, verb review.Verb) *noteForm {
	f := newNoteForm(m)
	f.pid, f.then = m.cur.P.ID, verb
	return f
}

func (f *noteForm) Update(m *Model, msg tea.KeyMsg) (overlay, tea.Cmd) {
	if f.then != "" && key.Matches(msg, m.Keys.Cancel) {
		return nil, common.Notify(string(f.then) + " " + f.pid + " not applied: the note was cancelled")
	}
	if f.then != "" && (m.busy != "" || m.settling) && (key.Matches(msg, m.Keys.Confirm) || key.Matches(msg, m.Keys.Form.Save)) {
		return f, common.Notify("wait: the last decision is still being written")
	}
	done, cmd := f.UpdateNote(m.Keys, msg, &m.note)
	switch {
	case !done:
		return f, cmd
	case f.then == "":
		return nil, cmd
	case f.then == review.Accept && m.ready() && m.cur.P.ID == f.pid && m.cur.P.Op == review.OpDelete:
		return &confirmDelete{pid: f.pid, ids: m.cur.P.TargetIDs(), verb: review.Accept}, nil // a destructive decision asks
	}
	return nil, m.decide(review.DecideRequest{Proposal: f.pid, Verb: f.then})
}

func (f *noteForm) View(m *Model, w, h int) string {
	inner := common.OverlayInner(m.Styles, w)
	body := f.Body(m.Styles, inner)
	if f.then != "" {
		body = m.Styles.Title.Render(m.wrapped(noteVerbTitle[f.then]+" "+f.pid+" with this note (enter; esc decides nothing)", inner)) + "\n" + body
	}
	return common.OverlayBox(m.Styles, body, w, h)
}

// noteVerbTitle names A's and R's verb in the note form's title.
var noteVerbTitle = map[review.Verb]string{review.Accept: "Accept", review.Reject: "Reject"}

func (f *noteForm) Help(k common.KeyMap) []key.Binding { return f.NoteForm.Help(k) }

func (f *noteForm) Capturing() bool { return true }
