package queue

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
)

// mergeForm is the merge editor, the only place a merge commits from: the
// combined record (the candidate and every chosen record, review.Combine)
// with its lemma, trigger, tags, category and confidence editable, its
// steps and checks listed, and each record the merge retires with its own
// lemma next to it. Enter commits, esc goes back to the picker with the
// same records chosen.
type mergeForm struct {
	*common.Form
	picker *mergePicker
	rec    review.Record // the combined record the fields start from
}

func newMergeForm(m *Model, mp *mergePicker) *mergeForm {
	rec := mp.merged.Clone()
	f := &mergeForm{Form: common.NewForm(common.EditLabels, common.RecordValues(&rec, common.EditLabels)), picker: mp, rec: rec}
	f.Inputs[0].SetCursor(0) // a long combined lemma shows from its start
	f.setWidth(m.overlayInner())
	return f
}

func (f *mergeForm) update(m *Model, msg tea.KeyMsg) (overlay, tea.Cmd) {
	r, closed, cmd := f.RecordKey(m.Keys, msg, &f.rec, m.busy)
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

func (f *mergeForm) view(m *Model, w, h int) string {
	st := m.Styles
	inner := max(w-st.Overlay.GetHorizontalFrameSize(), 1)
	cut := func(s string) string { return ansi.Truncate(common.PrintableLine(s), inner, "…") }
	title := "Merge " + f.picker.pid + ": the combined record keeps every source's content; edit it, then enter to commit"
	lines := []string{st.Title.Render(m.wrapped(title, inner)), "", f.View(st), ""}
	// The lemma field shows one line of it: the whole lemma as it stands.
	lines = append(lines, st.Label.Render("lemma as it will be saved"), m.wrapped(common.Printable(strings.TrimSpace(f.Values()[0])), inner), "")
	lines = append(lines, st.Label.Render(fmt.Sprintf("steps (%d)", len(f.rec.Steps))))
	for i, s := range f.rec.Steps {
		lines = append(lines, cut(fmt.Sprintf("  %d. %s", i+1, s)))
	}
	lines = append(lines, st.Label.Render(fmt.Sprintf("checks (%d)", len(f.rec.Checks))))
	for _, c := range f.rec.Checks {
		lines = append(lines, cut("  "+c.Env+": "+c.Input))
	}
	lines = append(lines, "")
	lemmas := map[string]string{}
	for _, r := range f.picker.chosen {
		lemmas[r.ID] = r.Lemma
	}
	lemma := f.Values()[0]
	for _, id := range f.picker.sources() {
		line := "- retire " + id
		l, ok := lemmas[id]
		if ok {
			line += ": " + l
		}
		lines = append(lines, st.Removed.Render(cut(line)))
		if ok && !review.KeepsLemma(lemma, l) {
			lines = append(lines, st.Warn.Render(cut("  ! the merged lemma no longer says all of "+id+"'s lemma")))
		}
	}
	return box(m, strings.Join(lines, "\n"), w, h)
}

func (f *mergeForm) help(k common.KeyMap) []key.Binding {
	k.Confirm.SetHelp("enter", "commit the merge")
	k.Cancel.SetHelp("esc", "back to the picker")
	return f.Help(k)
}

func (f *mergeForm) capturing() bool { return true }

func (f *mergeForm) setWidth(inner int) {
	f.SetWidth(inner)
	// A text input scrolled to a cursor that did not move keeps the window
	// of its old width (bubbles recomputes it only when the cursor leaves
	// it): recompute it from the end.
	for i := range f.Inputs {
		pos := f.Inputs[i].Position()
		f.Inputs[i].CursorEnd()
		f.Inputs[i].SetCursor(pos)
	}
	f.picker.setWidth(inner)
}
