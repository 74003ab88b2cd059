package bank

import (
	"fmt"
	"strings"

	"github.com/memreview/memreview/ui/common"
)

// evalLines is the detail's Eval section: what each decision that changed
// the record did in the eval runs that compared the bank before and after
// it ("this accept recovered 3 tasks, regressed 1"), and what the record
// did for the tasks that retrieved it, with the bank against without
// memory. Nothing when no eval run says anything.
func (m *Model) evalLines(w int) string {
	d, st := m.detail, m.Styles
	if d.EvalErr != "" {
		return "\n" + st.Error.Render(common.Wrap(d.EvalErr, w)) + "\n"
	}
	if d.Eval.Empty() {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n" + st.Title.Render("Eval") + "\n")
	for _, de := range d.Eval.Decisions {
		e := de.Effect
		text := fmt.Sprintf("%s: this %s recovered %s, regressed %d · eval %s", de.Decision, de.Verb, plural(len(e.Recovered), "task"), len(e.Regressed), e.Run)
		line := common.Indent("", text, w, 2)
		switch {
		case len(e.Regressed) > len(e.Recovered):
			line = st.Bad.Render(line)
		case len(e.Recovered) > len(e.Regressed):
			line = st.Good.Render(line)
		}
		b.WriteString(line + "\n")
	}
	for _, e := range d.Eval.Runs {
		b.WriteString(common.Indent("", e.String(), w, 2) + "\n")
	}
	return b.String()
}
