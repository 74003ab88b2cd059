package bank

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/form"
)

// The facet picker and the retrieval preview.

// facetRow is one term of a facet with its count in the current results.
type facetRow struct {
	field, term string
	count       int
}

// facetPicker toggles facet terms as filters; each toggle searches again.
// Enter (or f) keeps the filters; esc puts back those the picker opened
// with, and searches again if they changed.
// Until the operator moves or toggles, the cursor stays on the first row:
// a picker opened while the counts are still coming starts on the top
// term once they arrive, not on the one row it had (status retired).
type facetPicker struct {
	cur    facetRow
	moved  bool
	before map[string][]string // m.filters when the picker opened
}

func newFacetPicker(m *Model) *facetPicker {
	fp := &facetPicker{before: cloneFilters(m.filters)}
	if rows := m.facetRows(); len(rows) > 0 {
		fp.cur = rows[0]
	}
	return fp
}

// facetRows lists every term of every facet of the latest results, plus
// the chosen terms the results no longer hold (so they can be cleared) and
// status retired, which is hidden until chosen. Terms keep one order, by
// name within each field, so a toggle never moves the row under the cursor.
func (m *Model) facetRows() []facetRow {
	var rows []facetRow
	for _, f := range facetFields {
		seen := map[string]bool{}
		var field []facetRow
		for _, c := range m.facets[f] {
			field = append(field, facetRow{f, c.Term, c.Count})
			seen[c.Term] = true
		}
		extra := m.filters[f]
		if f == "status" {
			extra = append(slices.Clone(extra), string(review.Retired))
		}
		for _, t := range extra {
			if !seen[t] {
				field = append(field, facetRow{f, t, -1})
				seen[t] = true
			}
		}
		slices.SortFunc(field, func(a, b facetRow) int { return strings.Compare(a.term, b.term) })
		rows = append(rows, field...)
	}
	return rows
}

func (fp *facetPicker) pos(rows []facetRow) int {
	if !fp.moved && len(rows) > 0 {
		fp.cur = rows[0]
	}
	for i, r := range rows {
		if r.field == fp.cur.field && r.term == fp.cur.term {
			return i
		}
	}
	return 0
}

func (fp *facetPicker) Update(m *Model, msg tea.KeyMsg) (overlay, tea.Cmd) {
	k := m.Keys
	rows := m.facetRows()
	i := fp.pos(rows)
	switch {
	case key.Matches(msg, k.Cancel):
		if filterText(m.filters) == filterText(fp.before) {
			return nil, nil
		}
		m.filters = fp.before
		return nil, m.runSearch()
	case key.Matches(msg, k.Confirm), key.Matches(msg, k.Filter):
		return nil, nil
	case len(rows) == 0:
		return fp, nil
	case key.Matches(msg, k.Up):
		fp.cur, fp.moved = rows[max(i-1, 0)], true
	case key.Matches(msg, k.Down):
		fp.cur, fp.moved = rows[min(i+1, len(rows)-1)], true
	case key.Matches(msg, k.Toggle):
		r := rows[i]
		fp.moved = true
		vs := m.filters[r.field]
		if j := slices.Index(vs, r.term); j >= 0 {
			m.filters[r.field] = slices.Delete(vs, j, j+1)
		} else {
			m.filters[r.field] = append(vs, r.term)
		}
		return fp, m.runSearch()
	}
	return fp, nil
}

func (fp *facetPicker) View(m *Model, w, h int) string {
	st := m.Styles
	inner := common.OverlayInner(st, w)
	note := " — space toggles a filter; counts are of the current query"
	switch m.facetsApprox {
	case facetsWithRetired:
		note = " — space toggles a filter; ≈ counts include retired records"
	case facetsSampled:
		note = " — space toggles a filter; ≈ counts are scaled from a sample of the hits"
	}
	lines := []string{st.Title.Render("Facets") + st.Subtle.Render(note)}
	rows := m.facetRows()
	cur := fp.pos(rows)
	field := ""
	for i, r := range rows {
		if r.field != field {
			field = r.field
			lines = append(lines, st.Label.Render(field))
		}
		on := slices.Contains(m.filters[r.field], r.term)
		box := "[ ]"
		if on {
			box = "[x]"
		}
		count := thousands(r.count)
		if m.facetsApprox == facetsWithRetired && r.field != "status" || m.facetsApprox == facetsSampled {
			count = "≈ " + count // retired records counted too (estimateFacets), or a sample scaled
		}
		if r.count < 0 {
			count = "–" // not in the results: hidden (retired) or filtered away
		}
		line := fmt.Sprintf("%s %s %s", box, r.term, st.Subtle.Render(count))
		if i == cur {
			line = st.Selected.Render("▸ ") + line
		} else {
			line = "  " + line
		}
		lines = append(lines, ansi.Truncate(line, inner, "…"))
	}
	switch {
	case m.facetsPending:
		lines = append(lines, st.Subtle.Render("counting…"))
	case len(rows) == 0:
		lines = append(lines, st.Subtle.Render("no facets: the query found nothing"))
	}
	// Keep the cursor row on screen when the list is taller than the box.
	if over := len(lines) - (h - 2); over > 0 {
		skip := min(over, max(cur-(h-4)/2, 0))
		lines = append(lines[:1], lines[1+skip:]...)
	}
	return common.OverlayBox(m.Styles, strings.Join(lines, "\n"), w, h)
}

func (fp *facetPicker) Help(k common.KeyMap) []key.Binding {
	keep, undo := k.Confirm, k.Cancel
	keep.SetHelp("enter", "keep filters")
	undo.SetHelp("esc", "put filters back")
	return []key.Binding{k.Up, k.Down, k.Toggle, keep, undo}
}

// cloneFilters copies a filters map, its term lists too.
func cloneFilters(f map[string][]string) map[string][]string {
	out := make(map[string][]string, len(f))
	for k, v := range f {
		out[k] = slices.Clone(v)
	}
	return out
}

func (fp *facetPicker) Capturing() bool { return false }

func (fp *facetPicker) SetWidth(int) {}

// retrievePreview shows the records a task agent would be given: a form of
// task, env and k; enter retrieves, and the results show under the form.
type retrievePreview struct {
	*form.Form
	seq int
	res []app.Retrieved
	err error
	ran bool

	lines  string // res wrapped at width linesW; rebuilt when either changes
	linesW int
}

type retrieved struct {
	seq int
	res []app.Retrieved
	err error
}

func newRetrievePreview(m *Model) *retrievePreview {
	rp := &retrievePreview{Form: form.NewForm([]string{"task", "env", "k"}, []string{"", "", "5"})}
	rp.Fields[0].SetPlaceholder("describe a task")
	rp.Fields[1].SetPlaceholder("any env")
	return rp
}

func (rp *retrievePreview) Update(m *Model, msg tea.KeyMsg) (overlay, tea.Cmd) {
	res, cmd := rp.Form.Update(m.Keys, msg)
	switch res {
	case form.FormCancel:
		return nil, nil
	case form.FormApply:
		return rp, rp.run(m)
	}
	return rp, cmd
}

// run retrieves in a Cmd and loads the records it names.
func (rp *retrievePreview) run(m *Model) tea.Cmd {
	vs := rp.Values()
	kk, err := strconv.Atoi(vs[2])
	if err != nil || kk <= 0 {
		kk = 5
	}
	m.retrieveSeq++
	rp.seq, rp.ran = m.retrieveSeq, true
	seq, svc := rp.seq, m.deps.Service
	task, scope := vs[0], review.Scope{Env: vs[1]}
	return func() tea.Msg {
		// A preview: a person looking, so the retrieval is not logged.
		got, err := svc.Retrieve(app.RetrieveRequest{Task: task, Scope: scope, K: kk, Preview: true})
		return retrieved{seq: seq, res: got, err: err}
	}
}

func (rp *retrievePreview) View(m *Model, w, h int) string {
	st := m.Styles
	inner := common.OverlayInner(st, w)
	lines := []string{st.Title.Render("Retrieval preview") +
		st.Subtle.Render(" — what a task agent would be given; enter retrieves, tab next field")}
	rp.SetWidth(inner) // a no-op unless the width changed
	lines = append(lines, rp.Form.View(st))
	if envs := m.facets["env"]; len(envs) > 0 {
		var names []string
		for _, e := range envs {
			names = append(names, e.Term)
		}
		lines = append(lines, st.Subtle.Render(ansi.Truncate("  envs: "+strings.Join(names, ", "), inner, "…")))
	}
	lines = append(lines, "")
	switch {
	case rp.err != nil:
		lines = append(lines, st.Error.Render(common.Wrap("retrieve failed: "+rp.err.Error(), inner)))
	case rp.ran && rp.res == nil:
		lines = append(lines, st.Subtle.Render("retrieving…"))
	case rp.ran && len(rp.res) == 0:
		lines = append(lines, st.Subtle.Render("no active record matches this task and scope"))
	}
	if len(rp.res) > 0 {
		if rp.linesW != inner {
			rp.lines, rp.linesW = resultLines(st, rp.res, inner), inner
		}
		lines = append(lines, rp.lines)
		if slices.ContainsFunc(rp.res, func(r app.Retrieved) bool { return r.Record.Suspect }) {
			lines = append(lines, st.Subtle.Render(common.Wrap("An agent is given the suspect ones too, in this order: on the record, v verifies it again, e edits it, d retires it.", inner)))
		}
	}
	return common.OverlayBox(m.Styles, strings.Join(lines, "\n"), w, h)
}

// resultLines renders the retrieved records at width w, in the order an
// agent gets them; a suspect record (its last verify found a check that
// no longer holds) says so before its lemma.
func resultLines(st *common.Styles, res []app.Retrieved, w int) string {
	lines := make([]string, len(res))
	for i, s := range res {
		lemma := common.Printable(s.Record.Lemma)
		lead := fmt.Sprintf("%d %-8s %6.3f ", i+1, s.Record.ID, s.Score)
		if s.Record.Suspect {
			lemma = st.Bad.Render("suspect: a check no longer holds") + " — " + lemma
		}
		lines[i] = common.Indent(lead, lemma, w, ansi.StringWidth(lead))
	}
	return strings.Join(lines, "\n")
}

func (rp *retrievePreview) Help(k common.KeyMap) []key.Binding {
	k.Confirm.SetHelp("enter", "retrieve")
	return []key.Binding{k.Confirm, k.NextField, k.Cancel}
}

func (rp *retrievePreview) Capturing() bool { return true }
