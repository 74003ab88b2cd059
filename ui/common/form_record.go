package common

import (
	"fmt"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
)

// The record fields a Form edits, by label, for the edit, narrow and merge
// forms of the review and bank screens.

// EditLabels are the fields the edit form asks for; NarrowLabels those the
// narrow form asks for (where the record applies, first).
var (
	EditLabels   = []string{"lemma", "trigger", "tags", "category", "confidence"}
	NarrowLabels = []string{"tags", "trigger", "lemma"}
)

// RecordKey feeds one key to a form over base's fields. It returns the
// changed record when the operator applied valid values and nothing is in
// flight (busy is empty; otherwise it names what is); closed when the form
// was cancelled. Invalid values and a busy screen show on the form's error
// line, and the form stays open.
func (f *Form) RecordKey(k KeyMap, msg tea.KeyMsg, base *review.Record, busy string) (rec *review.Record, closed bool, cmd tea.Cmd) {
	res, cmd := f.Update(k, msg)
	switch res {
	case FormCancel:
		return nil, true, nil
	case FormApply:
		r, err := ApplyValues(base, f.Labels, f.Values())
		switch {
		case err != nil:
			f.SetErr(err.Error())
		case busy != "":
			f.SetErr("wait: " + busy)
		default:
			return r, false, nil
		}
		return nil, false, nil
	}
	return nil, false, cmd
}

// RecordValues returns r's values of the fields labels names, as a form
// shows them; a label it does not know gives "".
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
		}
	}
	return vs
}

// ApplyValues returns a copy of base with the fields labels names set from
// values (as Form.Values gives them), or an error that says which value is
// wrong and what it must be. base is not changed.
func ApplyValues(base *review.Record, labels, values []string) (*review.Record, error) {
	r := base.Clone()
	for i, l := range labels {
		v := ""
		if i < len(values) {
			v = strings.TrimSpace(values[i])
		}
		switch l {
		case "lemma":
			if v == "" {
				return nil, fmt.Errorf("the lemma is empty")
			}
			r.Lemma = v
		case "trigger":
			r.Trigger = v
		case "tags":
			r.Scope.Tags = SplitTags(v)
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
