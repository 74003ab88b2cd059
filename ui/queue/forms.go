package queue

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/form"
)

// The narrow and edit forms, the filter picker and the delete question.

// editForm edits some fields of the proposed record (a form.RecordForm:
// lemma and steps multi-line, the checks as a list, each field checked as
// it is typed), then decides with verb.
type editForm struct {
	*form.RecordForm
	pid  string
	verb review.Verb
}

func newForm(m *Model, verb review.Verb, labels []string) *editForm {
	f := &editForm{RecordForm: form.NewRecordForm(m.cur.Accepted, labels, m.envs), pid: m.cur.P.ID, verb: verb}
	f.SetWidth(m.overlayInner())
	return f
}

// newNarrowForm asks for the scope tags, trigger and lemma.
func newNarrowForm(m *Model) *editForm { return newForm(m, review.Narrow, form.NarrowLabels) }

// newEditForm asks for lemma, trigger, tags, category, confidence, steps
// and checks.
func newEditForm(m *Model) *editForm { return newForm(m, review.Edit, form.EditLabels) }

func (f *editForm) Update(m *Model, msg tea.KeyMsg) (overlay, tea.Cmd) {
	r, closed, cmd := f.Key(m.Keys, msg, m.busy)
	switch {
	case closed:
		return nil, nil
	case r != nil:
		return nil, m.decide(review.DecideRequest{Proposal: f.pid, Verb: f.verb, Record: r})
	}
	return f, cmd
}

func (f *editForm) View(m *Model, w, h int) string {
	st := m.Styles
	inner := common.OverlayInner(st, w)
	title := "Narrow " + f.pid + ": change where the record applies, then accept"
	if f.verb == review.Edit {
		title = "Edit " + f.pid + ": change the record, then accept"
	}
	head := st.Title.Render(m.wrapped(title, inner))
	f.SetSize(inner, h-st.Overlay.GetVerticalFrameSize()-lipgloss.Height(head)-1)
	return common.OverlayBox(m.Styles, head+"\n\n"+f.RecordForm.View(st), w, h)
}

func (f *editForm) Help(k common.KeyMap) []key.Binding { return f.RecordForm.Help(k) }

func (f *editForm) Capturing() bool { return true }

// confirmDelete asks before retiring a proposal's targets: on d, and on a
// for a delete proposal (a destructive decision always asks first).
type confirmDelete struct {
	common.Question
	pid  string
	ids  []string
	verb review.Verb // what y decides: delete, or accept of a delete proposal
}

func (c *confirmDelete) Update(m *Model, msg tea.KeyMsg) (overlay, tea.Cmd) {
	switch common.AnswerKey(m.Keys, msg, m.busy != "") {
	case common.AnswerYes:
		return nil, m.decide(review.DecideRequest{Proposal: c.pid, Verb: c.verb})
	case common.AnswerNo:
		return nil, nil
	}
	return c, nil
}

func (c *confirmDelete) View(m *Model, w, h int) string {
	inner := common.OverlayInner(m.Styles, w)
	q := fmt.Sprintf("Delete: retire %s (proposal %s)? y/n", strings.Join(c.ids, ", "), c.pid)
	return common.OverlayBox(m.Styles, m.Styles.Title.Render(m.wrapped(q, inner)), w, h)
}

// filterPicker chooses op, env and category values for the queue filter.
type filterPicker struct {
	rows    [3][]string // choices per row; "" = any
	choice  [3]int
	focused int
}

var filterRows = [3]string{"op", "env", "category"}

func newFilterPicker(m *Model) *filterPicker {
	fp := &filterPicker{}
	seen := [3]map[string]bool{{}, {}, {}}
	for i := range fp.rows {
		fp.rows[i] = []string{""}
	}
	for _, p := range m.all {
		vals := [3]string{string(p.Op), proposalEnv(&p, m.envOf), ""}
		if p.Record != nil {
			vals[2] = string(p.Record.Category)
		}
		for i, v := range vals {
			if v != "" && !seen[i][v] {
				seen[i][v] = true
				fp.rows[i] = append(fp.rows[i], v)
			}
		}
	}
	cur := [3]string{string(m.filter.Op), m.filter.Env, string(m.filter.Category)}
	for i := range fp.rows {
		slices.Sort(fp.rows[i][1:])
		fp.choice[i] = max(slices.Index(fp.rows[i], cur[i]), 0)
	}
	return fp
}

func (fp *filterPicker) Update(m *Model, msg tea.KeyMsg) (overlay, tea.Cmd) {
	k := m.Keys
	row := fp.rows[fp.focused]
	switch {
	case key.Matches(msg, k.Cancel):
		return nil, nil
	case key.Matches(msg, k.Confirm):
		m.filter = Filter{Op: review.Op(fp.rows[0][fp.choice[0]]), Env: fp.rows[1][fp.choice[1]],
			Category: review.Category(fp.rows[2][fp.choice[2]])}
		m.pos = 0
		m.applyFilter()
		return nil, m.show()
	case key.Matches(msg, k.Up):
		fp.focused = (fp.focused + 2) % 3
	case key.Matches(msg, k.Down), key.Matches(msg, k.NextField):
		fp.focused = (fp.focused + 1) % 3
	case key.Matches(msg, k.Right), key.Matches(msg, k.Toggle):
		fp.choice[fp.focused] = (fp.choice[fp.focused] + 1) % len(row)
	case key.Matches(msg, k.Left):
		fp.choice[fp.focused] = (fp.choice[fp.focused] + len(row) - 1) % len(row)
	}
	return fp, nil
}

func (fp *filterPicker) View(m *Model, w, h int) string {
	st := m.Styles
	lines := []string{st.Title.Render("Filter the queue"), ""}
	for i, name := range filterRows {
		mark := "  "
		if i == fp.focused {
			mark = st.Selected.Render("▸ ")
		}
		var opts []string
		for j, v := range fp.rows[i] {
			if v == "" {
				v = "any"
			}
			if j == fp.choice[i] {
				v = st.Selected.Render("[" + v + "]")
			}
			opts = append(opts, v)
		}
		lines = append(lines, mark+st.Label.Render(fmt.Sprintf("%-9s", name))+strings.Join(opts, " "))
	}
	inner := common.OverlayInner(st, w)
	for i := range lines {
		lines[i] = m.wrapped(lines[i], inner)
	}
	return common.OverlayBox(m.Styles, strings.Join(lines, "\n"), w, h)
}

func (fp *filterPicker) Help(k common.KeyMap) []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Left, k.Right, k.Confirm, k.Cancel}
}

func (fp *filterPicker) Capturing() bool { return false }

func (fp *filterPicker) SetWidth(int) {}
