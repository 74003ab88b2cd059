package form

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
)

// The checks field of a RecordForm (one check per line as "env: input",
// each keeping its expected output while its input is unchanged), what a
// merge's edit drops of its sources, and the declared environments the
// checks are held to.

// Drops says, for each of sources (the records a merge retires), what the
// record as the form holds it no longer has of it: sentences of its
// lemma, its steps, its checks; a source that loses nothing is left out.
// While a field is invalid only the lemma is compared.
func (f *RecordForm) Drops(sources []review.Record) map[string][]string {
	vs := f.Values()
	lemma := ""
	if i := slices.Index(f.Labels, "lemma"); i >= 0 {
		lemma = vs[i]
	}
	edited, _ := applyValues(&f.Base, f.Labels, vs, nil, f.drop)
	out := map[string][]string{}
	for i := range sources {
		if d := drops(&sources[i], lemma, edited); len(d) > 0 {
			out[sources[i].ID] = d
		}
	}
	return out
}

// drops says what of source r the record as edited (nil while a field is
// invalid) no longer holds (review.Lacks).
func drops(r *review.Record, lemma string, edited *review.Record) []string {
	var out []string
	if !review.KeepsLemma(lemma, r.Lemma) {
		out = append(out, "the merged lemma no longer says all of "+r.ID+"'s lemma")
	}
	if edited == nil {
		return out
	}
	for _, l := range review.Lacks(*edited, *r) {
		if n := len(l.Steps); n > 0 {
			out = append(out, fmt.Sprintf("drops %d of %s's %d steps", n, r.ID, len(r.Steps)))
		}
		if n := len(l.Checks); n > 0 {
			out = append(out, fmt.Sprintf("drops %d of %s's %d checks", n, r.ID, len(r.Checks)))
		}
	}
	return out
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
		parts = append(parts, checkList(fresh)+": new or edited input: saving runs it live and takes what it returns as its expected output")
	}
	if len(dropped) > 0 {
		parts = append(parts, checkList(dropped)+": expected output dropped: saving runs it live for a new one (ctrl+x keeps the old)")
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

// checkLine is a check as the checks field shows it: "env: input", the
// input's own line breaks as spaces (a field line is one check).
func checkLine(env, input string) string {
	return env + ": " + common.OneLine(input)
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
		return c.Env == env && strings.TrimSpace(common.OneLine(c.Input)) == input
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
			if !used[j] && c.Env == env && strings.TrimSpace(common.OneLine(c.Input)) == input { // as hasCheck
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

// EnvNames carries the environments the bank declares (memreview.toml),
// against which the record forms check the env of each check; Names is nil
// when they could not be read (then any well-formed name passes).
type EnvNames struct{ Names []string }

// LoadEnvNames reads the declared environments in a Cmd.
func LoadEnvNames(svc *app.Service) tea.Cmd {
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
