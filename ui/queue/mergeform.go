package queue

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/form"
)

// mergeForm is the merge editor, the only place a merge commits from: the
// combined record (the candidate and every chosen record, review.Combine)
// in a form.RecordForm — lemma, trigger, tags, category, confidence,
// steps and checks, all editable — and each record the merge retires with
// its own lemma next to it, warned about when the edit no longer says all
// of its lemma or drops one of its steps or checks. ctrl+s (or enter on a
// one-line field) commits; esc goes back to the picker with the same
// records chosen.
type mergeForm struct {
	*form.RecordForm
	picker *mergePicker
	warns  map[string][]string // by retired record: what the edit drops of it (drops), after each key
}

func newMergeForm(m *Model, mp *mergePicker) *mergeForm {
	rec := mp.merged.Clone()
	f := &mergeForm{RecordForm: form.NewRecordForm(&rec, form.EditLabels, m.envs), picker: mp}
	f.SetWidth(m.overlayInner())
	f.warn()
	return f
}

// warn works out what the record as edited drops of each chosen record.
func (f *mergeForm) warn() { f.warns = f.Drops(f.picker.retired()) }

func (f *mergeForm) Update(m *Model, msg tea.KeyMsg) (overlay, tea.Cmd) {
	r, closed, cmd := f.Key(m.Keys, msg, m.busy)
	f.warn()
	switch {
	case closed:
		return f.picker, nil
	case r != nil:
		// The operator chose each record as the picker showed it: a record
		// changed since is a conflict, not folded in unread.
		mp := f.picker
		var with []string
		seen := map[string]int{}
		for _, c := range mp.chosen {
			with = append(with, c.ID)
			seen[c.ID] = c.Version
		}
		return nil, m.decide(review.DecideRequest{Proposal: mp.pid, Verb: review.Merge, Record: r, With: with, Seen: seen})
	}
	return f, cmd
}

func (f *mergeForm) View(m *Model, w, h int) string {
	st := m.Styles
	inner := max(w-st.Overlay.GetHorizontalFrameSize(), 1)
	cut := func(s string) string { return ansi.Truncate(common.PrintableLine(s), inner, "…") }
	title := st.Title.Render(m.wrapped("Merge "+f.picker.pid+": the combined record keeps every source's content; edit it, then ctrl+s to commit", inner))
	var tail []string
	chosen := map[string]review.Record{}
	for _, r := range f.picker.retired() {
		chosen[r.ID] = r
	}
	for _, id := range f.picker.sources() {
		line := "- retire " + id
		r, ok := chosen[id]
		if ok {
			line += ": " + r.Lemma
		}
		tail = append(tail, st.Removed.Render(cut(line)))
		if !ok {
			continue
		}
		for _, warn := range f.warns[id] {
			tail = append(tail, st.Warn.Render(cut("  ! "+warn)))
		}
	}
	f.SetSize(inner, h-st.Overlay.GetVerticalFrameSize()-lipgloss.Height(title)-len(tail)-2)
	lines := append([]string{title, "", f.RecordForm.View(st), ""}, tail...)
	return common.OverlayBox(m.Styles, strings.Join(lines, "\n"), w, h)
}

func (f *mergeForm) Help(k common.KeyMap) []key.Binding {
	k.Form.Save.SetHelp("ctrl+s", "commit the merge")
	k.Confirm.SetHelp("enter", "commit the merge")
	k.Cancel.SetHelp("esc", "back to the picker")
	return f.RecordForm.Help(k)
}

func (f *mergeForm) Capturing() bool { return true }

func (f *mergeForm) SetWidth(inner int) {
	f.RecordForm.SetWidth(inner)
	f.picker.SetWidth(inner)
}
