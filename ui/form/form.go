// Package form holds the forms every screen's overlays are built from: Form,
// a column of labelled fields (TextField, a one- or multi-line field that
// wraps, grows and keeps what is pasted printable); RecordForm, the edit,
// narrow and merge forms over a record, with its checks field and the
// validation that refuses to save (form_record.go, form_checks.go); and
// NoteForm, the note the next decision carries (note.go).
package form

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/memreview/memreview/ui/common"
)

// Form is a column of labelled fields (TextField), the body of the edit,
// narrow, merge and note overlays. The keys (KeyMap.Form and the shared
// ones): tab and shift+tab move between fields, as do ↓ and ↑ from a
// field's last or first row; enter breaks the line in a multi-line field
// and applies from a one-line one, and alt+↑/↓ move a line of it; alt+1
// … alt+9 jump to a field (a line under the fields of a form of three or
// more names them); ctrl+s
// applies from any field; esc cancels, writing nothing.
//
// Check, when set, says what is wrong with a field's value; the form asks
// it after every edit of the field, shows the answer under that field and
// refuses to apply while any field has one. Notes (SetNote) say what
// applying will do, under their field. The screen owns what the values
// mean: on FormApply it builds what it needs and, when that fails, calls
// SetFieldErr or SetErr. The form draws only the fields and their lines;
// the screen adds the title and the frame.
type Form struct {
	Labels []string
	Fields []*TextField // one per label
	// MaxRows caps each field's rows (0: 6 for a multi-line field, 3 for a
	// one-line one); fewer when the form's height does not allow them.
	MaxRows []int
	// Hints are shown under the focused field (one per label; "" none).
	Hints []string
	// Check says what is wrong with field i's value, or "".
	Check func(i int, value string) string

	focus  int
	width  int          // the inner width; 0 until SetSize
	height int          // the most rows the form may take; 0: no limit
	errs   []string     // per field: what is wrong with its value
	notes  []string     // per field: what applying will do with it
	err    string       // the form's own error (busy, the whole record)
	below  [][]formLine // per field: the lines under it, from layout
	errW   []string     // err wrapped at width
	jumpW  []string     // the jump keys' line wrapped at width
}

// formLine is a line under a field: its error, note or hint.
type formLine struct {
	text string
	err  bool
}

// FormResult is what a key did to a Form.
type FormResult int

const (
	// FormEditing: the key edited a field or moved between fields.
	FormEditing FormResult = iota
	// FormApply: enter on a one-line field, or Save: check the values and
	// apply them.
	FormApply
	// FormCancel: Cancel was pressed; close the form, applying nothing.
	FormCancel
)

// MaxField is the most characters one form field takes; a longer paste is
// cut with a notice.
const MaxField = 8000

// NewForm returns a form with one one-line field per label holding the
// matching value, the first one focused. Use NewFormFields for multi-line
// fields.
func NewForm(labels, values []string) *Form { return NewFormFields(labels, values, nil) }

// NewFormFields is NewForm with the labels multi names as multi-line
// fields.
func NewFormFields(labels, values []string, multi func(label string) bool) *Form {
	f := &Form{Labels: labels, Fields: make([]*TextField, len(labels)),
		errs: make([]string, len(labels)), notes: make([]string, len(labels))}
	for i, l := range labels {
		v := ""
		if i < len(values) {
			v = values[i]
		}
		f.Fields[i] = NewTextField(v, multi != nil && multi(l), MaxField)
	}
	if len(f.Fields) > 0 {
		f.Fields[0].Focus()
	}
	f.layout()
	return f
}

// Update handles a key: field movement, apply, cancel, or an edit of the
// focused field (which clears the form's error and checks the field).
func (f *Form) Update(k common.KeyMap, msg tea.KeyMsg) (FormResult, tea.Cmd) {
	if len(f.Fields) == 0 {
		switch {
		case key.Matches(msg, k.Cancel):
			return FormCancel, nil
		case key.Matches(msg, k.Confirm), key.Matches(msg, k.Form.Save):
			return FormApply, nil
		}
		return FormEditing, nil
	}
	fd := f.Fields[f.focus]
	ks := msg.String()
	switch {
	case key.Matches(msg, k.Cancel):
		return FormCancel, nil
	case key.Matches(msg, k.Form.Save), key.Matches(msg, k.Confirm) && !fd.Multi():
		return FormApply, nil
	case key.Matches(msg, k.Form.Jump):
		if n := int(ks[len(ks)-1] - '1'); n < len(f.Fields) {
			return FormEditing, f.FocusField(n)
		}
		return FormEditing, nil
	case key.Matches(msg, k.Form.MoveLine):
		if !fd.Multi() {
			return FormEditing, nil
		}
		before := fd.Value()
		if ks == "alt+up" {
			fd.MoveLine(-1)
		} else {
			fd.MoveLine(1)
		}
		if fd.Value() != before {
			f.err = ""
			f.Recheck(f.focus)
		}
		return FormEditing, nil
	case key.Matches(msg, k.NextField) && (ks != "down" || !fd.Multi() || fd.OnLastRow()):
		return FormEditing, f.FocusField((f.focus + 1) % len(f.Fields))
	case key.Matches(msg, k.PrevField) && (ks != "up" || !fd.Multi() || fd.OnFirstRow()):
		return FormEditing, f.FocusField((f.focus + len(f.Fields) - 1) % len(f.Fields))
	}
	before := fd.Value()
	cmd := fd.Update(msg, f.Labels[f.focus])
	if fd.Value() != before {
		f.err = ""
		f.Recheck(f.focus)
	} else {
		f.layout()
	}
	return FormEditing, cmd
}

// Focused is the index of the field that takes typed keys.
func (f *Form) Focused() int { return f.focus }

// FocusField moves the focus to field i.
func (f *Form) FocusField(i int) tea.Cmd {
	if i < 0 || i >= len(f.Fields) {
		return nil
	}
	f.Fields[f.focus].Blur()
	f.focus = i
	cmd := f.Fields[i].Focus()
	f.layout()
	return cmd
}

// Values returns the fields' values, trimmed of surrounding space.
func (f *Form) Values() []string {
	vs := make([]string, len(f.Fields))
	for i, fd := range f.Fields {
		vs[i] = strings.TrimSpace(fd.Value())
	}
	return vs
}

// Recheck asks Check about field i again and lays the form out.
func (f *Form) Recheck(i int) {
	if f.Check != nil && i >= 0 && i < len(f.Fields) {
		f.errs[i] = f.Check(i, strings.TrimSpace(f.Fields[i].Value()))
	}
	f.layout()
}

// FieldErrs returns the errors shown under the fields, by label.
func (f *Form) FieldErrs() map[string]string {
	out := map[string]string{}
	for i, e := range f.errs {
		if e != "" {
			out[f.Labels[i]] = e
		}
	}
	return out
}

// Invalid is the first field error as "label: error", or "" when every
// field holds.
func (f *Form) Invalid() string {
	for i, e := range f.errs {
		if e != "" {
			return f.Labels[i] + ": " + e
		}
	}
	return ""
}

// SetFieldErr shows err under field i ("" clears it).
func (f *Form) SetFieldErr(i int, err string) {
	if i >= 0 && i < len(f.errs) {
		f.errs[i] = err
		f.layout()
	}
}

// SetNote shows note under field i ("" clears it).
func (f *Form) SetNote(i int, note string) {
	if i >= 0 && i < len(f.notes) && f.notes[i] != note {
		f.notes[i] = note
		f.layout()
	}
}

// Note is the note under field i.
func (f *Form) Note(i int) string { return f.notes[i] }

// SetErr shows err under the fields ("" clears it).
func (f *Form) SetErr(err string) {
	f.err = err
	f.layout()
}

// Err is the form's own error shown under the fields, or "".
func (f *Form) Err() string { return f.err }

// labelWidth is the width of the widest label.
func (f *Form) labelWidth() int {
	lw := 0
	for _, l := range f.Labels {
		lw = max(lw, ansi.StringWidth(l))
	}
	return lw
}

// SetWidth fits the form to inner width w with no limit on its height.
func (f *Form) SetWidth(w int) { f.SetSize(w, f.height) }

// SetSize fits the form to inner width w and at most h rows (0: no
// limit): the fields take the width the labels leave and as many rows as
// their text needs, up to MaxRows, fewer for the longest when the form
// would be taller than h. It does nothing when the size is the one the
// form has, so a View may call it.
func (f *Form) SetSize(w, h int) {
	if w == f.width && h == f.height {
		return
	}
	f.width, f.height = w, h
	f.layout()
}

// fieldWidth is the width a field's text takes: the inner width less the
// focus mark, the label column and the space after it.
func (f *Form) fieldWidth() int { return max(f.width-f.labelWidth()-3, 2) }

// layout sizes the fields and renders the lines under each (its error, its
// note and, when focused, its hint), for View.
func (f *Form) layout() {
	fw, pad := f.fieldWidth(), f.labelWidth()+3
	f.below = make([][]formLine, len(f.Fields))
	extra := 0
	add := func(i int, lead, s string, err bool) {
		w, hang := max(f.width, pad+4), pad+ansi.StringWidth(lead)
		for _, l := range strings.Split(common.Indent(strings.Repeat(" ", pad)+lead, common.Printable(s), w, hang), "\n") {
			f.below[i] = append(f.below[i], formLine{l, err})
		}
	}
	for i := range f.Fields {
		if e := f.errs[i]; e != "" {
			add(i, "! ", e, true)
		}
		if n := f.notes[i]; n != "" {
			add(i, "", n, false)
		}
		if i == f.focus && i < len(f.Hints) && f.Hints[i] != "" {
			add(i, "", f.Hints[i], false)
		}
		extra += len(f.below[i])
	}
	f.jumpW = nil
	if len(f.Fields) >= 3 {
		var parts []string
		for i, l := range f.Labels[:min(len(f.Labels), 9)] {
			parts = append(parts, fmt.Sprintf("alt+%d %s", i+1, l))
		}
		f.jumpW = strings.Split(common.Wrap(strings.Join(parts, " · "), max(f.width, 1)), "\n")
		extra += len(f.jumpW)
	}
	f.errW = nil
	if f.err != "" {
		f.errW = append([]string{""}, strings.Split(common.Wrap(common.Printable(f.err), max(f.width, 1)), "\n")...)
		extra += len(f.errW)
	}
	caps := make([]int, len(f.Fields))
	used := extra
	for i, fd := range f.Fields {
		caps[i] = f.maxRows(i)
		fd.SetSize(fw, caps[i])
		used += fd.Rows()
	}
	// Too tall: take a row from the tallest field the focus is not on (it
	// keeps the rows that show its start) until the form fits, then from
	// the focused one, until every field is one row.
	for f.height > 0 && used > f.height {
		t := -1
		for i, fd := range f.Fields {
			if i != f.focus && fd.Rows() > 1 && (t < 0 || fd.Rows() > f.Fields[t].Rows()) {
				t = i
			}
		}
		if t < 0 && f.Fields[f.focus].Rows() > 1 {
			t = f.focus
		}
		if t < 0 {
			break
		}
		used--
		f.Fields[t].SetSize(fw, f.Fields[t].Rows()-1)
	}
}

func (f *Form) maxRows(i int) int {
	if i < len(f.MaxRows) && f.MaxRows[i] > 0 {
		return f.MaxRows[i]
	}
	if f.Fields[i].Multi() {
		return 6
	}
	return 3
}

// View draws each field ("▸ label text" on the focused one, its further
// rows under the text), the lines under it, then the form's error, if
// any, after a blank line.
func (f *Form) View(st *common.Styles) string {
	lw := f.labelWidth()
	lines := make([]string, 0, len(f.Fields)*2+2)
	pad := strings.Repeat(" ", lw+3)
	for i, l := range f.Labels {
		mark := "  "
		if i == f.focus {
			mark = st.Selected.Render("▸ ")
		}
		label := l + strings.Repeat(" ", lw-ansi.StringWidth(l)+1)
		for j, row := range strings.Split(f.Fields[i].View(), "\n") {
			if j == 0 {
				lines = append(lines, mark+st.Label.Render(label)+row)
			} else {
				lines = append(lines, pad+row)
			}
		}
		for _, b := range f.below[i] {
			if b.err {
				lines = append(lines, st.Error.Render(b.text))
			} else {
				lines = append(lines, st.Subtle.Render(b.text))
			}
		}
	}
	for _, j := range f.jumpW {
		lines = append(lines, st.Subtle.Render(j))
	}
	for _, e := range f.errW {
		lines = append(lines, st.Error.Render(e))
	}
	return strings.Join(lines, "\n")
}

// Help lists the form's keys as they apply to the focused field.
func (f *Form) Help(k common.KeyMap) []key.Binding {
	b := []key.Binding{k.Form.Save}
	if f.focus < len(f.Fields) && f.Fields[f.focus].Multi() {
		b = append(b, k.Form.NewLine, k.Form.MoveLine)
	} else {
		apply := k.Confirm // the screen's enter may say "open": in a form it applies
		apply.SetHelp("enter", "apply")
		b = append(b, apply)
	}
	b = append(b, k.Cancel, k.NextField, k.PrevField)
	if len(f.Fields) >= 3 {
		b = append(b, k.Form.Jump)
	}
	return b
}
