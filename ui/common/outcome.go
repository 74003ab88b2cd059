package common

import (
	"fmt"

	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review"
)

// OutcomeWidth is the width of OutcomeMark, so that a list's columns line up.
const OutcomeWidth = 9

// OutcomeMark is a run's outcome in OutcomeWidth cells, a mark that reads
// without colour: "✔ 0.94" passed, "✘ 0.00" failed, "? unknown" for a run
// whose format gave none, "• " and the value for an outcome that is not a
// reward. Only a reward shows a fail.
func OutcomeMark(st *Styles, o review.Outcome) string {
	switch {
	case o.Kind == review.OutcomeValue:
		return st.Warn.Render(FitLine("• "+ansi.Truncate(PrintableLine(o.Value), OutcomeWidth-2, "…"), OutcomeWidth))
	case !o.Rewarded():
		return st.Subtle.Render(FitLine("? unknown", OutcomeWidth))
	case o.Passed:
		return st.Good.Render(FitLine(fmt.Sprintf("✔ %.2f", o.Reward), OutcomeWidth))
	}
	return st.Bad.Render(FitLine(fmt.Sprintf("✘ %.2f", o.Reward), OutcomeWidth))
}

// OutcomeLine is a run's outcome in words behind its mark: "✔ passed,
// reward 0.94", "? outcome unknown", "• ended: submitted".
func OutcomeLine(st *Styles, o review.Outcome) string {
	words := PrintableLine(o.Words())
	switch {
	case o.Kind == review.OutcomeValue:
		return st.Warn.Render("• " + words)
	case !o.Rewarded():
		return st.Subtle.Render("? " + words)
	case o.Passed:
		return st.Good.Render("✔ " + words)
	}
	return st.Bad.Render("✘ " + words)
}
