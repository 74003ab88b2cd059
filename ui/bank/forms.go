package bank

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
)

// The edit, narrow and merge form.

func newInput(value string) textinput.Model {
	ti := textinput.New()
	ti.Prompt = ""
	ti.Cursor.SetMode(cursor.CursorStatic) // no blink: nothing ticks
	ti.SetValue(value)
	return ti
}

// form edits some fields of the selected record, then writes it with verb.
type form struct {
	verb   review.Verb
	base   review.Record
	with   []string // merge: the marked records folded in
	labels []string
	inputs []textinput.Model
	focus  int
	err    string
}

func newForm(m *Model, verb review.Verb, labels, values []string) *form {
	f := &form{verb: verb, base: copyRecord(m.detail.Record), labels: labels}
	for _, v := range values {
		f.inputs = append(f.inputs, newInput(v))
	}
	f.inputs[0].Focus()
	return f
}

func copyRecord(r *review.Record) review.Record {
	c := *r
	c.Scope.Tags = slices.Clone(r.Scope.Tags)
	c.Steps = slices.Clone(r.Steps)
	c.Checks = slices.Clone(r.Checks)
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

// request is the store request the form makes.
func (f *form) request(r *review.Record) review.RecordRequest {
	if f.verb == review.Merge {
		return review.RecordRequest{Verb: review.Merge, IDs: append([]string{f.base.ID}, f.with...), Record: r}
	}
	return review.RecordRequest{Verb: f.verb, IDs: []string{r.ID}, Record: r}
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
		return nil, m.decide(f.request(r))
	case key.Matches(msg, k.NextField), key.Matches(msg, k.PrevField):
		f.inputs[f.focus].Blur()
		step := 1
		if key.Matches(msg, k.PrevField) {
			step = len(f.inputs) - 1
		}
		f.focus = (f.focus + step) % len(f.inputs)
		return f, f.inputs[f.focus].Focus()
	}
	var cmd tea.Cmd
	f.inputs[f.focus], cmd = f.inputs[f.focus].Update(msg)
	f.err = ""
	return f, cmd
}

func (f *form) view(m *Model, w, h int) string {
	st := m.Styles
	inner := w - st.Overlay.GetHorizontalFrameSize()
	var title string
	switch f.verb {
	case review.Narrow:
		title = "Narrow " + f.base.ID + ": change where it applies"
	case review.Merge:
		title = fmt.Sprintf("Merge %s with %s into one new record; the sources are retired and linked to it",
			f.base.ID, strings.Join(f.with, ", "))
	default:
		title = "Edit " + f.base.ID
	}
	lines := []string{st.Title.Render(wrapText(title, inner)), ""}
	lw := 0
	for _, l := range f.labels {
		lw = max(lw, len(l)) // labels are ASCII constants
	}
	for i, l := range f.labels {
		in := f.inputs[i]
		in.Width = max(inner-lw-4, 1)
		mark := "  "
		if i == f.focus {
			mark = st.Selected.Render("▸ ")
		}
		lines = append(lines, mark+st.Label.Render(fmt.Sprintf("%-*s ", lw, l))+in.View())
	}
	if f.err != "" {
		lines = append(lines, "", st.Error.Render(wrapText(f.err, inner)))
	}
	return box(m, strings.Join(lines, "\n"), w, h)
}

func (f *form) help(m *Model) []key.Binding {
	k := m.Keys
	return []key.Binding{k.Confirm, k.Cancel, k.NextField, k.PrevField}
}

func (f *form) capturing() bool { return true }

// box frames overlay content at width w, cut to height h.
func box(m *Model, s string, w, h int) string {
	st := m.Styles.Overlay
	return st.Width(max(w-st.GetHorizontalBorderSize(), 1)).MaxHeight(max(h, 0)).Render(s)
}
