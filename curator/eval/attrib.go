package eval

import (
	"fmt"
	"slices"
	"sort"
)

// Attribution: what a record, and what a decision, did for the tasks that
// met it. A task "passes" under a condition when most of its graded
// repetitions passed; a task no graded repetition covers is left out.

// RecordEffect is one record in one run: the tasks whose bank condition
// retrieved it, and how they ended with the bank against without memory.
type RecordEffect struct {
	Run    string   `json:"run"`
	Record string   `json:"record"`
	Tasks  []string `json:"tasks"`     // tasks that retrieved it under bank
	Bank   int      `json:"with_bank"` // of those, how many passed with the bank
	None   int      `json:"without"`   // and without memory
	Helped []string `json:"helped,omitempty"`
	Hurt   []string `json:"hurt,omitempty"`
}

// String says it in one line.
func (e RecordEffect) String() string {
	return fmt.Sprintf("eval %s: retrieved by %d task%s: %d passed with the bank, %d without memory (helped %d, hurt %d)",
		e.Run, len(e.Tasks), plural(len(e.Tasks)), e.Bank, e.None, len(e.Helped), len(e.Hurt))
}

// DecisionEffect is one decision in one run: the tasks that retrieved a
// record it changed, under the bank just before it or just after, and
// which of them it recovered (failed before, passed after) and regressed.
type DecisionEffect struct {
	Run       string   `json:"run"`
	Decision  string   `json:"decision"`
	Records   []string `json:"records"`
	Tasks     []string `json:"tasks"`
	Recovered []string `json:"recovered"`
	Regressed []string `json:"regressed"`
}

// String says it in one line: "recovered 3 tasks, regressed 1".
func (e DecisionEffect) String() string {
	return fmt.Sprintf("recovered %d task%s, regressed %d (of %d that retrieved %s; eval %s)",
		len(e.Recovered), plural(len(e.Recovered)), len(e.Regressed), len(e.Tasks), joinIDs(e.Records), e.Run)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func joinIDs(ids []string) string {
	if len(ids) > 3 {
		return fmt.Sprintf("%s, %s and %d more", ids[0], ids[1], len(ids)-2)
	}
	out := ""
	for i, id := range ids {
		if i > 0 {
			out += ", "
		}
		out += id
	}
	return out
}

// outcomes is, per condition and task, whether the task passed and the
// records it was given (any repetition).
type outcomes struct {
	passed    map[string]map[string]bool // condition → task → passed (graded tasks only)
	retrieved map[string]map[string][]string
}

func tally(runs []TaskRun) outcomes {
	type count struct{ graded, passed int }
	counts := map[string]map[string]*count{}
	o := outcomes{passed: map[string]map[string]bool{}, retrieved: map[string]map[string][]string{}}
	for i := range runs {
		tr := &runs[i]
		if o.retrieved[tr.Condition] == nil {
			o.retrieved[tr.Condition] = map[string][]string{}
			counts[tr.Condition] = map[string]*count{}
		}
		for _, id := range tr.Retrieved {
			if !slices.Contains(o.retrieved[tr.Condition][tr.Task], id) {
				o.retrieved[tr.Condition][tr.Task] = append(o.retrieved[tr.Condition][tr.Task], id)
			}
		}
		if !tr.Graded() {
			continue
		}
		c := counts[tr.Condition][tr.Task]
		if c == nil {
			c = &count{}
			counts[tr.Condition][tr.Task] = c
		}
		c.graded++
		c.passed += btoi(tr.Passed())
	}
	for cond, m := range counts {
		o.passed[cond] = map[string]bool{}
		for task, c := range m {
			o.passed[cond][task] = 2*c.passed > c.graded
		}
	}
	return o
}

// RecordEffects is, for each record the bank condition gave some task,
// what it did; nil when the run lacks the none or the bank condition.
func RecordEffects(p *Plan, runs []TaskRun) map[string]*RecordEffect {
	if !slices.Contains(p.Conditions, CondNone) || !slices.Contains(p.Conditions, CondBank) {
		return nil
	}
	o := tally(runs)
	out := map[string]*RecordEffect{}
	for _, t := range p.Tasks {
		bank, okB := o.passed[CondBank][t.ID]
		none, okN := o.passed[CondNone][t.ID]
		if !okB || !okN {
			continue
		}
		for _, id := range o.retrieved[CondBank][t.ID] {
			e := out[id]
			if e == nil {
				e = &RecordEffect{Run: p.ID, Record: id}
				out[id] = e
			}
			e.Tasks = append(e.Tasks, t.ID)
			e.Bank += btoi(bank)
			e.None += btoi(none)
			switch {
			case bank && !none:
				e.Helped = append(e.Helped, t.ID)
			case none && !bank:
				e.Hurt = append(e.Hurt, t.ID)
			}
		}
	}
	return out
}

// DecisionEffects is, for each decision the run has both bank@before:D
// and bank@D for, the tasks it recovered and regressed.
func DecisionEffects(p *Plan, runs []TaskRun) []DecisionEffect {
	o := tally(runs)
	var ids []string
	for id := range p.Decisions {
		if slices.Contains(p.Conditions, "bank@"+beforePrefix+id) && slices.Contains(p.Conditions, "bank@"+id) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	var out []DecisionEffect
	for _, id := range ids {
		before, after := "bank@"+beforePrefix+id, "bank@"+id
		touched := p.Decisions[id]
		e := DecisionEffect{Run: p.ID, Decision: id, Records: touched, Tasks: []string{}, Recovered: []string{}, Regressed: []string{}}
		for _, t := range p.Tasks {
			if !retrievedAny(o.retrieved[before][t.ID], touched) && !retrievedAny(o.retrieved[after][t.ID], touched) {
				continue
			}
			b, okB := o.passed[before][t.ID]
			a, okA := o.passed[after][t.ID]
			if !okB || !okA {
				continue
			}
			e.Tasks = append(e.Tasks, t.ID)
			switch {
			case a && !b:
				e.Recovered = append(e.Recovered, t.ID)
			case b && !a:
				e.Regressed = append(e.Regressed, t.ID)
			}
		}
		out = append(out, e)
	}
	return out
}

func retrievedAny(got, want []string) bool {
	for _, id := range got {
		if slices.Contains(want, id) {
			return true
		}
	}
	return false
}
