package common

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
	"github.com/memreview/memreview/review/service"
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
	for i, l := range labels {
		f.Hints[i] = recordHints[l]
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
func (f *RecordForm) Key(k KeyMap, msg tea.KeyMsg, busy string) (rec *review.Record, closed bool, cmd tea.Cmd) {
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
func (f *RecordForm) Help(k KeyMap) []key.Binding {
	b := f.Form.Help(k)
	if f.Labels[f.Focused()] == "checks" {
		b = append(b, k.Form.KeepExpect)
	}
	return b
}

// toggleDrop keeps or drops the expected output of the check on the line
// under the cursor.
func (f *RecordForm) toggleDrop() {
	fd := f.Fields[f.Focused()]
	lines := strings.Split(fd.Value(), "\n")
	if n := fd.Line(); n < len(lines) {
		if env, input, ok := parseCheck(lines[n]); ok {
			k := checkKey(env, input)
			f.drop[k] = !f.drop[k]
		}
	}
}

// checksNote says, for the checks as typed, which keep the expected output
// they have in the base record and which have none after saving.
func (f *RecordForm) checksNote(v string) string {
	checks, err := parseChecks(v, &f.Base, f.drop)
	if err != nil {
		return ""
	}
	var kept, dropped, fresh []string
	for i, c := range checks {
		n := strconv.Itoa(i + 1)
		switch {
		case c.kept:
			kept = append(kept, n)
		case c.dropped:
			dropped = append(dropped, n)
		default:
			fresh = append(fresh, n)
		}
	}
	var parts []string
	if len(kept) > 0 {
		parts = append(parts, checkList(kept)+" "+plural(len(kept), "keeps its", "keep their")+" expected output")
	}
	if len(fresh) > 0 {
		parts = append(parts, checkList(fresh)+": new or edited input, so no expected output is kept (none until it is run and re-baselined)")
	}
	if len(dropped) > 0 {
		parts = append(parts, checkList(dropped)+": expected output dropped (ctrl+x keeps it)")
	}
	if len(checks) < len(f.Base.Checks) {
		parts = append(parts, fmt.Sprintf("%d of the record's %d checks removed", len(f.Base.Checks)-countKept(checks), len(f.Base.Checks)))
	}
	return strings.Join(parts, " · ")
}

// checkList names checks by number: "check 2", "checks 1, 3".
func checkList(ns []string) string {
	return plural(len(ns), "check ", "checks ") + strings.Join(ns, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func countKept(cs []parsedCheck) int {
	n := 0
	for _, c := range cs {
		if c.kept || c.dropped {
			n++
		}
	}
	return n
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

// checkLine is a check as the checks field shows it: "env: input", the
// input's own line breaks as spaces (a field line is one check).
func checkLine(env, input string) string {
	return env + ": " + oneLineReplacer.Replace(input)
}

// ApplyValues returns a copy of base with the fields labels names set from
// values (as Form.Values gives them), or a *FieldError that says which
// value is wrong and what it must be. A check keeps its expected output
// when base has one with the same env and input. base is not changed.
func ApplyValues(base *review.Record, labels, values []string) (*review.Record, error) {
	return applyValues(base, labels, values, nil, nil)
}

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

// checkCheck says what is wrong with one line of the checks field.
func checkCheck(line string, envs []string) string {
	env, input, ok := parseCheck(line)
	switch {
	case !ok:
		return "write it as env: input"
	case review.CheckID(env) != nil:
		return "environment " + strconv.Quote(env) + ": " + review.CheckID(env).Error()
	case envs != nil && !slices.Contains(envs, env):
		known := "none is declared"
		if len(envs) > 0 {
			known = "declared: " + strings.Join(envs, ", ")
		}
		return fmt.Sprintf("no environment %q (%s; see memreview env list)", env, known)
	case input == "":
		return "the input is empty"
	}
	return review.CheckText(input)
}

// hasCheck reports whether base has the check line says, as the checks
// field shows it.
func hasCheck(base *review.Record, line string) bool {
	env, input, ok := parseCheck(line)
	return ok && slices.ContainsFunc(base.Checks, func(c review.Check) bool {
		return c.Env == env && strings.TrimSpace(oneLineReplacer.Replace(c.Input)) == input
	})
}

// parseCheck splits "env: input" at its first colon.
func parseCheck(line string) (env, input string, ok bool) {
	env, input, ok = strings.Cut(line, ":")
	return strings.TrimSpace(env), strings.TrimSpace(input), ok
}

func checkKey(env, input string) string { return env + "\x00" + input }

// parsedCheck is a line of the checks field as the record will hold it.
type parsedCheck struct {
	review.Check
	kept    bool // its expected output is base's
	dropped bool // base had it, but the operator dropped the expected output
}

// parseChecks reads the checks field: each line's check keeps the expected
// output of the first unused check of base with the same env and input
// (as the field shows it), unless drop holds it.
func parseChecks(v string, base *review.Record, drop map[string]bool) ([]parsedCheck, error) {
	used := make([]bool, len(base.Checks))
	var out []parsedCheck
	for i, line := range splitLines(v) {
		env, input, ok := parseCheck(line)
		if !ok {
			return nil, fmt.Errorf("check %d: write it as env: input", i+1)
		}
		pc := parsedCheck{Check: review.Check{Env: env, Input: input}}
		for j, c := range base.Checks {
			if !used[j] && c.Env == env && strings.TrimSpace(oneLineReplacer.Replace(c.Input)) == input { // as hasCheck
				used[j] = true
				pc.Input = c.Input // its own line breaks, which the field shows as spaces
				if drop[checkKey(env, input)] {
					pc.dropped = true
				} else {
					pc.Expect, pc.kept = c.Expect, true
				}
				break
			}
		}
		out = append(out, pc)
	}
	return out, nil
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

// EnvNames carries the environments the bank declares (memreview.toml),
// against which the record forms check the env of each check; Names is nil
// when they could not be read (then any well-formed name passes).
type EnvNames struct{ Names []string }

// LoadEnvNames reads the declared environments in a Cmd.
func LoadEnvNames(svc *service.Service) tea.Cmd {
	if svc == nil {
		return nil
	}
	return func() tea.Msg {
		cfg, _, err := svc.EnvConfig()
		if err != nil {
			return EnvNames{}
		}
		names := []string{}
		for _, e := range cfg.Envs {
			if e.Name != "" {
				names = append(names, e.Name)
			}
		}
		return EnvNames{Names: names}
	}
}
