package queue

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/form"
)

// mergePicker chooses records to fold into the proposal's record. It opens
// with the index's suggestions for the candidate's lemma (active records
// of the candidate's env, not the proposal's own targets); the search box
// finds more, in every env (each row names its env). Chosen
// records stay chosen across searches. Enter opens the merge editor
// (mergeForm) on the combined record; only the editor commits.
type mergePicker struct {
	pid       string
	base      review.Record   // the candidate record the merge keeps (a merge proposal's with its targets folded in)
	targets   []string        // the proposal's targets, always folded in
	targetRs  []review.Record // their current versions, whose content the editor warns about dropping
	seedQuery string
	exclude   []string
	related   []review.Record // the candidate's related records, listed first by the opening search

	found_    []review.Record // the latest search's records
	chosen    []review.Record // in the order chosen
	merged    review.Record   // base combined with chosen
	cursor    int
	search    textinput.Model
	searching bool // the search box has the keys
	loading   bool
	err       string
}

func newMergePicker(m *Model) *mergePicker {
	p := m.cur.P
	mp := &mergePicker{
		pid:       p.ID,
		base:      m.cur.Accepted.Clone(),
		targets:   p.TargetIDs(),
		seedQuery: lemmaQuery(p.Record.Lemma),
		search:    common.NewInput(""),
		loading:   true,
	}
	mp.search.Placeholder = "search records"
	for _, t := range m.cur.Targets {
		if t != nil {
			mp.targetRs = append(mp.targetRs, *t)
		}
	}
	mp.exclude = append(slices.Clone(mp.targets), p.Record.ID)
	mp.related = relatedSeed(m.cur.Related, mp.exclude)
	mp.SetWidth(m.overlayInner())
	mp.combine()
	return mp
}

// found takes a search's results.
func (mp *mergePicker) found(msg searched) {
	mp.loading = false
	mp.err = ""
	if msg.err != nil {
		mp.err = msg.err.Error()
		return
	}
	mp.found_ = mp.relatedFirst(msg.recs)
	mp.cursor = min(mp.cursor, max(len(mp.found_)-1, 0))
}

func (mp *mergePicker) isChosen(id string) bool {
	return slices.ContainsFunc(mp.chosen, func(r review.Record) bool { return r.ID == id })
}

// retired are the records the merge retires as read: the targets still
// in the bank, then the chosen ones.
func (mp *mergePicker) retired() []review.Record {
	return append(slices.Clone(mp.targetRs), mp.chosen...)
}

// sources are the records the merge retires: targets, then chosen.
func (mp *mergePicker) sources() []string {
	out := slices.Clone(mp.targets)
	for _, r := range mp.chosen {
		if !slices.Contains(out, r.ID) {
			out = append(out, r.ID)
		}
	}
	return out
}

func (mp *mergePicker) Update(m *Model, msg tea.KeyMsg) (overlay, tea.Cmd) {
	k := m.Keys
	if mp.searching {
		switch {
		case key.Matches(msg, k.Cancel):
			mp.searching = false
			mp.search.Blur()
		case key.Matches(msg, k.Confirm):
			mp.searching = false
			mp.search.Blur()
			mp.loading = true
			q := strings.TrimSpace(mp.search.Value())
			if q == "" {
				q = mp.seedQuery
			}
			return mp, m.searchRecords(mp.pid, q, "", mp.exclude) // the operator's search: every env
		default:
			var cmd tea.Cmd
			mp.search, cmd = mp.search.Update(msg)
			return mp, cmd
		}
		return mp, nil
	}
	switch {
	case key.Matches(msg, k.Cancel):
		return nil, nil
	case key.Matches(msg, k.Search):
		mp.searching = true
		mp.search.Focus()
	case key.Matches(msg, k.Up):
		mp.cursor = max(mp.cursor-1, 0)
	case key.Matches(msg, k.Down):
		mp.cursor = min(mp.cursor+1, max(len(mp.found_)-1, 0))
	case key.Matches(msg, k.Toggle):
		if mp.cursor < len(mp.found_) {
			r := mp.found_[mp.cursor]
			if mp.isChosen(r.ID) {
				mp.chosen = slices.DeleteFunc(mp.chosen, func(c review.Record) bool { return c.ID == r.ID })
			} else {
				mp.chosen = append(mp.chosen, r)
			}
			mp.combine()
		}
	case key.Matches(msg, k.Confirm):
		if len(mp.sources()) == 0 {
			mp.err = "choose at least one record to fold in (space)"
			return mp, nil
		}
		if m.busy != "" {
			return mp, nil
		}
		return newMergeForm(m, mp), form.LoadEnvNames(m.deps.Service)
	}
	return mp, nil
}

// combine remakes the merge's default record: the candidate with every
// chosen record's content folded in (review.Combine).
func (mp *mergePicker) combine() { mp.merged = review.Combine(mp.base, mp.chosen...) }

func (mp *mergePicker) View(m *Model, w, h int) string {
	st := m.Styles
	inner := max(w-st.Overlay.GetHorizontalFrameSize(), 1)
	cut := func(s string) string { return ansi.Truncate(s, inner, "…") }
	lines := []string{st.Title.Render(cut("Merge " + mp.pid + ": choose records to fold into the candidate")), ""}
	lines = append(lines, st.Label.Render("search: ")+mp.search.View())
	switch {
	case mp.loading:
		lines = append(lines, st.Subtle.Render("searching…"))
	case mp.err != "":
		lines = append(lines, st.Error.Render(cut(mp.err)))
	case len(mp.found_) == 0:
		lines = append(lines, st.Subtle.Render("no similar active records; / to search"))
	}
	// The list is windowed so the preview below always fits.
	listRows := max(h-len(lines)-8-len(mp.sources()), 3)
	first := max(mp.cursor-listRows+1, 0)
	for i := first; i < len(mp.found_) && i < first+listRows; i++ {
		r := mp.found_[i]
		box := "[ ] "
		if mp.isChosen(r.ID) {
			box = "[x] "
		}
		line := cut(box + r.ID + "  " + r.Scope.Env + "  " + common.PrintableLine(r.Lemma))
		if i == mp.cursor {
			line = st.Selected.Render("▸" + ansi.Truncate(line, inner-1, "…"))
		} else {
			line = " " + ansi.Truncate(line, inner-1, "…")
		}
		lines = append(lines, line)
	}
	lines = append(lines, "", st.Title.Render("Merged result"))
	c := mp.merged
	lines = append(lines, cut(st.Added.Render("+ new record: "+common.PrintableLine(c.Lemma))))
	lines = append(lines, cut(st.Subtle.Render(fmt.Sprintf("  %s · %s · tags %s · %d steps · %d checks", c.Category, c.Scope.Env,
		strings.Join(c.Scope.Tags, ", "), len(c.Steps), len(c.Checks)))))
	for _, id := range mp.sources() {
		lines = append(lines, st.Removed.Render(cut("- retire "+id+" (merged into the new record)")))
	}
	return common.OverlayBox(m.Styles, strings.Join(lines, "\n"), w, h)
}

func (mp *mergePicker) Help(k common.KeyMap) []key.Binding {
	if mp.searching {
		return []key.Binding{k.Confirm, k.Cancel}
	}
	return []key.Binding{k.Up, k.Down, k.Toggle, k.Search, k.Confirm, k.Cancel}
}

func (mp *mergePicker) Capturing() bool { return mp.searching }

func (mp *mergePicker) SetWidth(inner int) {
	mp.search.Width = max(inner-10, 1) // less the "search: " label and the cursor
	mp.search.SetCursor(mp.search.Position())
}
