package review

import "strconv"

// How a run's outcome reads. Only a reward says pass or fail: a run whose
// format gave no outcome (OutcomeUnknown) did not fail, and one whose
// outcome is not a reward (OutcomeValue: an Inspect score, a SWE-agent
// exit status, an OpenHands state) ended as its Value says.

// Failed reports whether the run failed: a reward outcome that did not
// pass.
func (o Outcome) Failed() bool { return o.Rewarded() && !o.Passed }

// Succeeded reports whether the run passed: a reward outcome that did.
func (o Outcome) Succeeded() bool { return o.Rewarded() && o.Passed }

// PassedTerm is the outcome as the index's "passed" field holds it:
// "true", "false", or "unknown" for a run that carries no reward.
func (o Outcome) PassedTerm() string {
	if !o.Rewarded() {
		return "unknown"
	}
	return strconv.FormatBool(o.Passed)
}

// Words says the outcome in a few words: "passed, reward 0.94", "failed,
// reward 0.00", "outcome unknown", or "ended: submitted" (a value, as the
// format wrote it).
func (o Outcome) Words() string {
	switch {
	case o.Kind == OutcomeValue:
		return "ended: " + o.Value
	case !o.Rewarded():
		return "outcome unknown"
	case o.Passed:
		return "passed, reward " + strconv.FormatFloat(o.Reward, 'f', 2, 64)
	}
	return "failed, reward " + strconv.FormatFloat(o.Reward, 'f', 2, 64)
}
