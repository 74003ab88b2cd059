package queue

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
)

// The narrow and edit forms, the filter picker and the delete question.

// form edits some fields of the proposed record, then decides with verb.
type form struct {
	pid    string
	verb   review.Verb
	base   review.Record
	labels []string
	inputs []textinput.Model
	focus  int
	err    string
}

func newInput(value string) textinput.Model {
	ti := textinput.New()
	ti.Prompt = ""
	ti.Cursor.SetMode(cursor.CursorStatic) // no blink: nothing ticks
	ti.SetValue(value)
	return ti
}

func newForm(m *Model, verb review.Verb, labels, values []string) *form {
	f := &form{pid: m.cur.P.ID, verb: verb, base: copyRecord(m.cur.P.Record), labels: labels}
	for _, v := range values {
		f.inputs = append(f.inputs, newInput(v))
	}
	f.inputs[0].Focus()
	f.setWidth(m.overlayInner())
	return f
}

// fitInput sets a text input's width and scrolls its text to the cursor.
func fitInput(in *textinput.Model, w int) {
	in.Width = max(w, 1)
	in.SetCursor(in.Position())
}

// labelWidth is the width of the widest label.
func (f *form) labelWidth() int {
	lw := 0
	for _, l := range f.labels {
		lw = max(lw, ansi.StringWidth(l))
	}
	return lw
}

func (f *form) setWidth(inner int) {
	for i := range f.inputs {
		fitInput(&f.inputs[i], inner-f.labelWidth()-4)
	}
}

// newNarrowForm asks for the scope tags, trigger and lemma.
func newNarrowForm(m *Model) *form {
	r := m.cur.P.Record
	return newForm(m, review.Narrow, []string{"tags", "trigger", "lemma"},
		[]string{strings.Join(r.Scope.Tags, ", "), r.Trigger, r.Lemma})
}

// newEditForm asks for lemma, trigger, tags, category and confidence.
func newEditForm(m *Model) *form {
	r := m.cur.P.Record
	return newForm(m, review.Edit, []string{"lemma", "trigger", "tags", "category", "confidence"},
		[]string{r.Lemma, r.Trigger, strings.Join(r.Scope.Tags, ", "), string(r.Category),
			strconv.FormatFloat(r.Confidence, 'f', -1, 64)})
}

func copyRecord(r *review.Record) review.Record {
	c := *r
	c.Scope.Tags = slices.Clone(r.Scope.Tags)
	c.Steps = slices.Clone(r.Steps)
	return c
}

// splitTags parses "a, b ,c" into its non-empty tags.
func splitTags(s string) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// record builds the final record from the inputs, or says what is wrong.
func (f *form) record() (*review.Record, error) {
	r := copyRecord(&f.base)
	for i, l := range f.labels {
		v := strings.TrimSpace(f.inputs[i].Value())
		switch l {
		case "lemma":
			if v == "" {
				return nil, fmt.Errorf("the lemma is empty")
			}
			r.Lemma = v
		case "trigger":
			r.Trigger = v
		case "tags":
			r.Scope.Tags = splitTags(v)
		case "category":
			c := review.Category(v)
			if !c.Valid() {
				return nil, fmt.Errorf("category %q is not one of %v", v, review.Categories)
			}
			r.Category = c
		case "confidence":
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || x < 0 || x > 1 {
				return nil, fmt.Errorf("confidence %q is not a number from 0 to 1", v)
			}
			r.Confidence = x
		}
	}
	return &r, nil
}

func (f *form) update(m *Model, msg tea.KeyMsg) (overlay, tea.Cmd) {
	k := m.Keys
	switch {
	case key.Matches(msg, k.Cancel):
		return nil, nil
	case key.Matches(msg, k.Confirm):
		r, err := f.record()
		if err != nil {
			f.err = err.Error()
			return f, nil
		}
		if m.busy != "" {
			f.err = "wait: " + m.busy
			return f, nil
		}
		return nil, m.decide(review.DecideRequest{Proposal: f.pid, Verb: f.verb, Record: r})
	case key.Matches(msg, k.NextField), key.Matches(msg, k.PrevField):
		f.inputs[f.focus].Blur()
		step := 1
		if key.Matches(msg, k.PrevField) {
			step = len(f.inputs) - 1
		}
		f.focus = (f.focus + step) % len(f.inputs)
		f.inputs[f.focus].Focus()
		return f, nil
	}
	var cmd tea.Cmd
	f.inputs[f.focus], cmd = f.inputs[f.focus].Update(msg)
	f.err = ""
	return f, cmd
}

func (f *form) view(m *Model, w, h int) string {
	st := m.Styles
	inner := w - st.Overlay.GetHorizontalFrameSize()
	title := "Narrow " + f.pid + ": change where the record applies, then accept"
	if f.verb == review.Edit {
		title = "Edit " + f.pid + ": change the record, then accept"
	}
	lines := []string{st.Title.Render(m.wrapped(title, inner)), ""}
	lw := f.labelWidth()
	for i, l := range f.labels {
		in := f.inputs[i]
		mark := "  "
		if i == f.focus {
			mark = st.Selected.Render("▸ ")
		}
		lines = append(lines, mark+st.Label.Render(fmt.Sprintf("%-*s ", lw, l))+in.View())
	}
	if f.err != "" {
		lines = append(lines, "", st.Error.Render(m.wrapped(f.err, inner)))
	}
	return box(m, strings.Join(lines, "\n"), w, h)
}

func (f *form) help(k common.KeyMap) []key.Binding {
	return []key.Binding{k.Confirm, k.Cancel, k.NextField, k.PrevField}
}

func (f *form) capturing() bool { return true }

// box frames overlay content at width w, cut to height h.
func box(m *Model, s string, w, h int) string {
	st := m.Styles.Overlay
	return st.Width(max(w-st.GetHorizontalBorderSize(), 1)).MaxHeight(max(h, 0)).Render(s)
}

// confirmDelete asks before retiring a proposal's targets.
type confirmDelete struct {
	pid string
	ids []string
}

func (c *confirmDelete) update(m *Model, msg tea.KeyMsg) (overlay, tea.Cmd) {
	k := m.Keys
	switch {
	case key.Matches(msg, k.Yes):
		if m.busy != "" {
			return c, nil
		}
		return nil, m.decide(review.DecideRequest{Proposal: c.pid, Verb: review.Delete})
	case key.Matches(msg, k.No), key.Matches(msg, k.Cancel):
		return nil, nil
	}
	return c, nil
}

func (c *confirmDelete) view(m *Model, w, h int) string {
	inner := w - m.Styles.Overlay.GetHorizontalFrameSize()
	q := fmt.Sprintf("Delete: retire %s (proposal %s)? y/n", strings.Join(c.ids, ", "), c.pid)
	return box(m, m.Styles.Title.Render(m.wrapped(q, inner)), w, h)
}

func (c *confirmDelete) help(k common.KeyMap) []key.Binding {
	return []key.Binding{k.Yes, k.No}
}

func (c *confirmDelete) capturing() bool { return false }

func (c *confirmDelete) setWidth(int) {}

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
		vals := [3]string{string(p.Op), proposalEnv(&p), ""}
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

func (fp *filterPicker) update(m *Model, msg tea.KeyMsg) (overlay, tea.Cmd) {
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

func (fp *filterPicker) view(m *Model, w, h int) string {
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
	inner := w - st.Overlay.GetHorizontalFrameSize()
	for i := range lines {
		lines[i] = m.wrapped(lines[i], inner)
	}
	return box(m, strings.Join(lines, "\n"), w, h)
}

func (fp *filterPicker) help(k common.KeyMap) []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Left, k.Right, k.Confirm, k.Cancel}
}

func (fp *filterPicker) capturing() bool { return false }

func (fp *filterPicker) setWidth(int) {}
