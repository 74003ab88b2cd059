package form

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
)

// The record fields a Form edits, by label, for the edit, narrow and merge
// forms of the review and bank screens (RecordForm).

// EditLabels are the fields the edit and merge forms ask for; NarrowLabels
// those the narrow form asks for (where the record applies, first).
var (
	EditLabels   = []string{"lemma", "trigger", "tags", "category", "confidence", "steps", "checks"}
	NarrowLabels = []string{"tags", "trigger", "lemma"}
)

// multiLabel reports whether the field a label names takes several lines.
func multiLabel(l string) bool { return l == "lemma" || l == "steps" || l == "checks" }

// recordHints are shown under the focused field of a record form.
var recordHints = map[string]string{
	"lemma":  "enter: new line · ctrl+s: save",
	"tags":   "comma-separated",
	"steps":  "one step per line: add or delete lines; alt+↑/↓ moves the line under the cursor",
	"checks": "one check per line as env: input · ctrl+x keeps or drops the expected output of the check under the cursor · alt+↑/↓ moves it",
}

// RecordForm is a Form over some fields of a record (labels from
// EditLabels and NarrowLabels): the lemma, steps and checks multi-line,
// each field checked as it is typed (an empty lemma, an unknown
// environment, a malformed check, text over review's limits), the checks
// field noting which checks keep their expected output and which lose it
// (an edited input does; so does ctrl+x).
type RecordForm struct {
	*Form
	Base review.Record
	envs []string        // the declared environments; nil: not known
	drop map[string]bool // checkKey of the checks whose expected output the operator dropped
}

// NewRecordForm returns a form over base's fields labels names, checked
// against the environments envs declares (nil: any well-formed name).
func NewRecordForm(base *review.Record, labels, envs []string) *RecordForm {
	f := &RecordForm{Form: NewFormFields(labels, RecordValues(base, labels), multiLabel), Base: base.Clone(), envs: envs, drop: map[string]bool{}}
	f.Hints = make([]string, len(labels))
	f.MaxRows = make([]int, len(labels))
	for i, l := range labels {
		f.Hints[i] = recordHints[l]
		if l == "lemma" {
			f.MaxRows[i] = 12 // a merge's lemma holds every source's: shown whole while the form has the rows
		}
		if l == "steps" || l == "checks" {
			f.Fields[i].SetPlaceholder("(none)")
		}
	}
	f.Check = f.check
	for i := range labels {
		f.Recheck(i)
	}
	return f
}

// SetEnvs sets the declared environments and checks the fields again.
func (f *RecordForm) SetEnvs(envs []string) {
	f.envs = envs
	for i := range f.Labels {
		f.Recheck(i)
	}
}

// check says what is wrong with field i's value; for the checks field it
// also sets the note on what happens to each check's expected output.
func (f *RecordForm) check(i int, v string) string {
	if f.Labels[i] == "checks" {
		f.SetNote(i, f.checksNote(v))
	}
	return checkValue(f.Labels[i], v, &f.Base, f.envs)
}

// Key feeds one key to the form. It returns the changed record when the
// operator applied valid values and nothing is in flight (busy is empty;
// otherwise it names what is); closed when the form was cancelled. Invalid
// values and a busy screen show on the form, and it stays open.
func (f *RecordForm) Key(k common.KeyMap, msg tea.KeyMsg, busy string) (rec *review.Record, closed bool, cmd tea.Cmd) {
	if i := f.Focused(); key.Matches(msg, k.Form.KeepExpect) && f.Labels[i] == "checks" {
		f.toggleDrop()
		f.Recheck(i)
		return nil, false, nil
	}
	res, cmd := f.Update(k, msg)
	switch res {
	case FormCancel:
		return nil, true, nil
	case FormApply:
		if bad := f.Invalid(); bad != "" {
			f.SetErr("not saved: " + bad)
			return nil, false, nil
		}
		r, err := f.Record()
		switch {
		case err != nil:
			f.SetErr("not saved: " + err.Error())
		case busy != "":
			f.SetErr("wait: " + busy)
		default:
			return r, false, nil
		}
		return nil, false, nil
	}
	return nil, false, cmd
}

// Record is the base record with the form's values, or an error (also
// shown under the field it is about).
func (f *RecordForm) Record() (*review.Record, error) {
	r, err := applyValues(&f.Base, f.Labels, f.Values(), f.envs, f.drop)
	var fe *FieldError
	if errors.As(err, &fe) {
		if i := slices.Index(f.Labels, fe.Label); i >= 0 {
			f.SetFieldErr(i, fe.Msg)
		}
	}
	return r, err
}

// Help adds ctrl+x on the checks field to the form's keys.
func (f *RecordForm) Help(k common.KeyMap) []key.Binding {
	b := f.Form.Help(k)
	if f.Labels[f.Focused()] == "checks" {
		b = append(b, k.Form.KeepExpect)
	}
	return b
}

// FieldError is a value that does not hold: the field's label and why.
type FieldError struct{ Label, Msg string }

func (e *FieldError) Error() string { return e.Label + ": " + e.Msg }

// RecordValues returns r's values of the fields labels names, as a form
// shows them: steps one per line, checks one per line as "env: input"; a
// label it does not know gives "".
func RecordValues(r *review.Record, labels []string) []string {
	vs := make([]string, len(labels))
	for i, l := range labels {
		switch l {
		case "lemma":
			vs[i] = r.Lemma
		case "trigger":
			vs[i] = r.Trigger
		case "tags":
			vs[i] = strings.Join(r.Scope.Tags, ", ")
		case "category":
			vs[i] = string(r.Category)
		case "confidence":
			vs[i] = strconv.FormatFloat(r.Confidence, 'f', -1, 64)
		case "steps":
			vs[i] = strings.Join(r.Steps, "\n")
		case "checks":
			lines := make([]string, len(r.Checks))
			for j, c := range r.Checks {
				lines[j] = checkLine(c.Env, c.Input)
			}
			vs[i] = strings.Join(lines, "\n")
		}
	}
	return vs
}

// applyValues returns a copy of base with the fields labels names set from
// values (as Form.Values gives them), or a *FieldError that says which
// value is wrong and what it must be. A check keeps its expected output
// when base has one with the same env and input. base is not changed.
func applyValues(base *review.Record, labels, values, envs []string, drop map[string]bool) (*review.Record, error) {
	r := base.Clone()
	for i, l := range labels {
		v := ""
		if i < len(values) {
			v = strings.TrimSpace(values[i])
		}
		if msg := checkValue(l, v, base, envs); msg != "" {
			return nil, &FieldError{l, msg}
		}
		switch l {
		case "lemma":
			r.Lemma = v
		case "trigger":
			r.Trigger = v
		case "tags":
			r.Scope.Tags = SplitTags(v)
		case "category":
			r.Category = review.Category(v)
		case "confidence":
			r.Confidence, _ = strconv.ParseFloat(v, 64)
		case "steps":
			r.Steps = splitLines(v)
		case "checks":
			cs, _ := parseChecks(v, base, drop)
			r.Checks = nil
			for _, c := range cs {
				r.Checks = append(r.Checks, c.Check)
			}
		}
	}
	if field, msg := review.CheckRecordLimits(&r); msg != "" {
		label, _, _ := strings.Cut(field, "[")
		label = strings.TrimPrefix(label, "scope.")
		if !slices.Contains(labels, label) {
			label = "record"
		}
		return nil, &FieldError{label, msg}
	}
	return &r, nil
}

// checkValue says what is wrong with the value v of the field label, or
// "": envs, when not nil, are the environments a new or edited check may
// name (a check base already has passes as it is, so that a record whose
// environment was removed can still have its lemma edited).
func checkValue(label, v string, base *review.Record, envs []string) string {
	switch label {
	case "lemma":
		if v == "" {
			return "the lemma is empty"
		}
		return review.CheckText(v)
	case "trigger":
		return review.CheckText(v)
	case "tags":
		for _, t := range SplitTags(v) {
			if m := review.CheckText(t); m != "" {
				return "tag " + ansi.Truncate(t, 20, "…") + ": " + m
			}
		}
	case "category":
		if !review.Category(v).Valid() {
			return fmt.Sprintf("category %q is not one of %v", v, review.Categories)
		}
	case "confidence":
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || x < 0 || x > 1 {
			return fmt.Sprintf("confidence %q is not a number from 0 to 1", v)
		}
	case "steps":
		for i, s := range splitLines(v) {
			if m := review.CheckText(s); m != "" {
				return fmt.Sprintf("step %d: %s", i+1, m)
			}
		}
	case "checks":
		for i, line := range splitLines(v) {
			known := envs
			if hasCheck(base, line) {
				known = nil
			}
			if m := checkCheck(line, known); m != "" {
				return fmt.Sprintf("check %d: %s", i+1, m)
			}
		}
	}
	return ""
}

// splitLines returns the non-blank lines of s, trimmed.
func splitLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// SplitTags parses "a, b ,c" into its non-empty tags.
func SplitTags(s string) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}
