package bank

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/form"
)

// The edit, narrow and merge form: a form.RecordForm over some fields of
// the selected record (lemma, steps and checks multi-line, each field
// checked as it is typed), which it then writes with verb.
type editForm struct {
	*form.RecordForm
	verb review.Verb
	id   string         // the selected record's id (the base has none when merging)
	with []string       // merge: the marked records folded in
	seen map[string]int // merge: the version of each of with the screen showed
	// merge: the records it retires (the selected one and with), and what
	// the edit drops of each, worked out after every key
	sources []review.Record
	warns   map[string][]string
}

// newEditForm and newNarrowForm open the form on the selected record.
func newEditForm(m *Model) *editForm   { return newForm(m, review.Edit, form.EditLabels) }
func newNarrowForm(m *Model) *editForm { return newForm(m, review.Narrow, form.NarrowLabels) }

func newForm(m *Model, verb review.Verb, labels []string) *editForm {
	r := m.detail.Record
	return &editForm{RecordForm: form.NewRecordForm(r, labels, m.envs), verb: verb, id: r.ID}
}

// newMergeForm opens the form on combined, review.Combine of the records
// sources (the selected one first, then the marked ones, with).
func newMergeForm(m *Model, combined *review.Record, sources []review.Record, with []string, seen map[string]int) *editForm {
	return &editForm{RecordForm: form.NewRecordForm(combined, form.EditLabels, m.envs), verb: review.Merge,
		id: sources[0].ID, with: with, seen: seen, sources: sources}
}

// request is the store request the form makes with the record r.
func (f *editForm) request(r *review.Record) review.RecordRequest {
	if f.verb == review.Merge {
		return review.RecordRequest{Verb: review.Merge, IDs: append([]string{f.id}, f.with...), Record: r, Seen: f.seen}
	}
	return review.RecordRequest{Verb: f.verb, IDs: []string{r.ID}, Record: r}
}

func (f *editForm) Update(m *Model, msg tea.KeyMsg) (overlay, tea.Cmd) {
	r, closed, cmd := f.Key(m.Keys, msg, m.busy)
	if f.verb == review.Merge {
		f.warns = f.Drops(f.sources)
	}
	switch {
	case closed:
		return nil, nil
	case r != nil:
		return nil, m.decide(f.request(r))
	}
	return f, cmd
}

func (f *editForm) View(m *Model, w, h int) string {
	st := m.Styles
	inner := common.OverlayInner(st, w)
	var title string
	switch f.verb {
	case review.Narrow:
		title = "Narrow " + f.id + ": change where it applies"
	case review.Merge:
		title = fmt.Sprintf("Merge %s with %s into one new record; the sources are retired and linked to it",
			f.id, strings.Join(f.with, ", "))
	default:
		title = "Edit " + f.id
	}
	head := st.Title.Render(common.Wrap(title, inner))
	if f.verb == review.Merge {
		b := f.Base
		head += "\n" + st.Subtle.Render(common.Wrap(fmt.Sprintf(
			"keeps every record's content: %d steps, %d checks, tags %s", len(b.Steps), len(b.Checks), strings.Join(b.Scope.Tags, ", ")), inner))
	}
	var warns []string
	for _, r := range f.sources {
		for _, wn := range f.warns[r.ID] {
			warns = append(warns, st.Warn.Render(ansi.Truncate("! "+wn, inner, "…")))
		}
	}
	tail := ""
	if len(warns) > 0 {
		tail = "\n\n" + strings.Join(warns, "\n")
	}
	f.SetSize(inner, h-st.Overlay.GetVerticalFrameSize()-lipgloss.Height(head)-1-len(warns)-min(len(warns), 1)) // a no-op unless the size changed
	return common.OverlayBox(m.Styles, head+"\n\n"+f.RecordForm.View(st)+tail, w, h)
}

func (f *editForm) Help(k common.KeyMap) []key.Binding {
	k.Confirm.SetHelp("enter", "apply") // not the list's "open"
	k.Form.Save.SetHelp("ctrl+s", "apply")
	return f.RecordForm.Help(k)
}

func (f *editForm) Capturing() bool { return true }
