package common

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// NewInput returns a one-line text input holding value, with no prompt and
// a cursor that does not blink (nothing ticks while a form is open).
func NewInput(value string) textinput.Model {
	ti := textinput.New()
	ti.Prompt = ""
	ti.Cursor.SetMode(cursor.CursorStatic)
	ti.SetValue(value)
	return ti
}

// Form is a column of labelled one-line text inputs, the body of the edit,
// narrow and merge overlays: NextField and PrevField (tab, shift+tab, ↓, ↑)
// move between the fields, Confirm (enter) asks to apply, Cancel (esc) to
// close, and a validation error shows under the fields until the next
// keystroke. The screen owns what the values mean: on FormApply it checks
// them and calls SetErr when they do not hold. It draws only the fields and
// the error; the screen adds the title and the frame.
type Form struct {
	Labels []string
	Inputs []textinput.Model // one per label

	focus int
	width int    // the inner width the inputs are fitted to; 0 until SetWidth
	err   string // the validation error
	errW  string // err wrapped at width
}

// FormResult is what a key did to a Form.
type FormResult int

const (
	// FormEditing: the key edited a field or moved between fields.
	FormEditing FormResult = iota
	// FormApply: Confirm was pressed; check the values and apply them.
	FormApply
	// FormCancel: Cancel was pressed; close the form, applying nothing.
	FormCancel
)

// NewForm returns a form with one input per label holding the matching
// value, the first one focused.
func NewForm(labels, values []string) *Form {
	f := &Form{Labels: labels, Inputs: make([]textinput.Model, len(labels))}
	for i := range labels {
		v := ""
		if i < len(values) {
			v = values[i]
		}
		f.Inputs[i] = NewInput(v)
	}
	if len(f.Inputs) > 0 {
		f.Inputs[0].Focus()
	}
	return f
}

// Update handles a key: field movement, apply, cancel, or typing into the
// focused field (which clears the error).
func (f *Form) Update(k KeyMap, msg tea.KeyMsg) (FormResult, tea.Cmd) {
	switch {
	case key.Matches(msg, k.Cancel):
		return FormCancel, nil
	case key.Matches(msg, k.Confirm):
		return FormApply, nil
	case len(f.Inputs) == 0:
		return FormEditing, nil
	case key.Matches(msg, k.NextField), key.Matches(msg, k.PrevField):
		step := 1
		if key.Matches(msg, k.PrevField) {
			step = len(f.Inputs) - 1
		}
		return FormEditing, f.FocusField((f.focus + step) % len(f.Inputs))
	}
	msg, notice := ClampPaste(msg, MaxField-len([]rune(f.Inputs[f.focus].Value())), "the "+f.Labels[f.focus]+" field")
	var cmd tea.Cmd
	f.Inputs[f.focus], cmd = f.Inputs[f.focus].Update(msg)
	f.SetErr("")
	return FormEditing, tea.Batch(cmd, notice)
}

// MaxField is the most characters one form field takes; a longer paste is
// cut with a notice.
const MaxField = 8000

// Focused is the index of the field that takes typed keys.
func (f *Form) Focused() int { return f.focus }

// FocusField moves the focus to field i.
func (f *Form) FocusField(i int) tea.Cmd {
	if i < 0 || i >= len(f.Inputs) {
		return nil
	}
	f.Inputs[f.focus].Blur()
	f.focus = i
	return f.Inputs[i].Focus()
}

// Values returns the fields' values, trimmed of surrounding space.
func (f *Form) Values() []string {
	vs := make([]string, len(f.Inputs))
	for i := range f.Inputs {
		vs[i] = strings.TrimSpace(f.Inputs[i].Value())
	}
	return vs
}

// SetErr shows err under the fields ("" clears it).
func (f *Form) SetErr(err string) {
	f.err = err
	f.errW = Wrap(err, f.width)
}

// Err is the error shown under the fields, or "".
func (f *Form) Err() string { return f.err }

// labelWidth is the width of the widest label.
func (f *Form) labelWidth() int {
	lw := 0
	for _, l := range f.Labels {
		lw = max(lw, ansi.StringWidth(l))
	}
	return lw
}

// SetWidth fits the form to inner width w: the inputs take what the labels
// leave and scroll their text to the cursor. It does nothing when w is the
// width the form already has, so a View may call it.
func (f *Form) SetWidth(w int) {
	if w == f.width {
		return
	}
	f.width = w
	iw := max(w-f.labelWidth()-4, 1) // less the focus mark, the space after the label and the cursor
	for i := range f.Inputs {
		f.Inputs[i].Width = iw
		f.Inputs[i].SetCursor(f.Inputs[i].Position())
	}
	f.errW = Wrap(f.err, w)
}

// View draws one line per field ("▸ label value" on the focused one), then
// the error, if any, after a blank line.
func (f *Form) View(st *Styles) string {
	lw := f.labelWidth()
	lines := make([]string, 0, len(f.Inputs)+2)
	for i, l := range f.Labels {
		mark := "  "
		if i == f.focus {
			mark = st.Selected.Render("▸ ")
		}
		label := l + strings.Repeat(" ", lw-ansi.StringWidth(l)+1)
		lines = append(lines, mark+st.Label.Render(label)+f.fieldView(i))
	}
	if f.err != "" {
		lines = append(lines, "", st.Error.Render(f.errW))
	}
	return strings.Join(lines, "\n")
}

// fieldView draws field i: the focused one as its input shows it (scrolled
// to the cursor), the others from their first character, so that a long
// value the cursor left at its end does not show only its tail.
func (f *Form) fieldView(i int) string {
	in := &f.Inputs[i]
	if i == f.focus || in.Width <= 0 || ansi.StringWidth(in.Value()) <= in.Width {
		return in.View()
	}
	return ansi.Truncate(in.Value(), in.Width, "…")
}

// Help lists the form's keys.
func (f *Form) Help(k KeyMap) []key.Binding {
	return []key.Binding{k.Confirm, k.Cancel, k.NextField, k.PrevField}
}

// ClampPaste cuts a pasted or typed run of runes to the room a one-line
// field has left (its cap less what it holds) and turns line breaks and
// tabs into spaces, so a 100 KB paste is absorbed as one short edit. When
// it cut anything the Cmd says so in the footer, naming field.
func ClampPaste(msg tea.KeyMsg, room int, field string) (tea.KeyMsg, tea.Cmd) {
	if msg.Type != tea.KeyRunes || len(msg.Runes) <= 1 {
		return msg, nil
	}
	room = max(room, 0)
	cut := max(len(msg.Runes)-room, 0)
	runes := slices.Clone(msg.Runes[:len(msg.Runes)-cut])
	for i, r := range runes {
		if r == '\n' || r == '\r' || r == '\t' {
			runes[i] = ' '
		}
	}
	msg.Runes = runes
	if cut == 0 {
		return msg, nil
	}
	return msg, Notify(fmt.Sprintf("pasted text cut: %s took %d more characters; %d left out", field, room, cut))
}
