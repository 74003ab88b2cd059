package review

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/memreview/memreview/probe"
)

// Live runs. A person's re-run of what a proposal rests on (p on the review
// screen) is saved as a probe run attached to
// the proposal and marked with what it repeats (ProbeRun.Repeats), so that
// it outlives a defer and a restart, and so that accepting the proposal
// takes the latest live run of each check of its record as that check's
// baseline (Check.Expect): a new record is not suspect at its first verify
// because the curator's probe ran before the environment last changed.

// RepeatsCheck is the ProbeRun.Repeats of a live run of a check of the
// proposal's record (matched by env and input).
const RepeatsCheck = "check"

// Live reports whether r is a live re-run of a proposal's probe, not
// evidence the proposal was made or attached with.
func (r ProbeRun) Live() bool { return r.Repeats != "" }

// LiveItem is one thing a live run of a proposal runs: one of its probe
// runs (Run) or a check of its record that no probe run repeats (Check,
// 1-based), with the result it is compared with and its latest live run.
type LiveItem struct {
	Expect probe.Result // the recorded run's result, or the check's expected one
	Run    string       // the recorded run's id; "" for a check
	Check  int          // 1-based check of the proposal's record; 0 for a recorded run
	Last   *ProbeRun    // the latest saved live run of it; nil when none
}

// Repeats is what a live run of it saves as ProbeRun.Repeats.
func (it LiveItem) Repeats() string {
	if it.Check > 0 {
		return RepeatsCheck
	}
	return it.Run
}

// LiveItems lists what a live run of proposal p runs, given every probe run
// it has (the store's ProbeRunsFor): its evidence runs in order, then each
// check of its record that no evidence run repeats (same env and input),
// each with its latest live run among runs.
func LiveItems(p *Proposal, runs []ProbeRun) []LiveItem {
	var items []LiveItem
	var live []ProbeRun
	seen := map[string]bool{}
	for _, run := range runs {
		if run.Live() {
			live = append(live, run)
			continue
		}
		items = append(items, LiveItem{Expect: run.Result, Run: run.ID})
		seen[run.Result.Env+"\x00"+run.Result.Input] = true
	}
	if p != nil && p.Record != nil {
		for i, c := range p.Record.Checks {
			if seen[c.Env+"\x00"+c.Input] {
				continue
			}
			seen[c.Env+"\x00"+c.Input] = true
			exp := c.Expect
			exp.Env, exp.Input = c.Env, c.Input
			if exp.Kind == "" {
				exp.Kind = probe.KindSQL
			}
			items = append(items, LiveItem{Expect: exp, Check: i + 1})
		}
	}
	for i := range items {
		items[i].Last = latestLive(live, items[i].Expect.Env, items[i].Expect.Input, items[i].Repeats(), false)
	}
	return items
}

// latestLive is the latest of the live runs that ran input on env (and
// repeat repeats, when not ""; without an error, when ok), nil when none.
func latestLive(runs []ProbeRun, env, input, repeats string, ok bool) *ProbeRun {
	var last *ProbeRun
	for i := range runs {
		r := &runs[i]
		if !r.Live() || r.Result.Env != env || r.Result.Input != input ||
			(repeats != "" && r.Repeats != repeats) || (ok && !r.Result.OK()) {
			continue
		}
		if last == nil || runBefore(last, r) {
			last = r
		}
	}
	return last
}

// runBefore orders runs by time, then by id number (run_0009 < run_0010 <
// run_10000).
func runBefore(a, b *ProbeRun) bool {
	if !a.At.Equal(b.At) {
		return a.At.Before(b.At)
	}
	if len(a.ID) != len(b.ID) {
		return len(a.ID) < len(b.ID)
	}
	return a.ID < b.ID
}

// Baseline is a check whose expected result a decision took from a live run.
type Baseline struct {
	Check int    `json:"check"` // 1-based, in the record written
	Run   string `json:"run"`   // the live run's id
}

// SetBaselines sets the Expect of each check of r that a live run without
// an error ran (same env and input; whichever item it repeated) to the
// latest such run's result, and lists the run in r's provenance. A check no
// live run repeats keeps the Expect it has. r's slices are copied before
// they change. It returns the checks it set, in order.
func SetBaselines(r *Record, live []ProbeRun) []Baseline {
	var out []Baseline
	for i, c := range r.Checks {
		run := latestLive(live, c.Env, c.Input, "", true)
		if run == nil {
			continue
		}
		if out == nil {
			r.Checks = slices.Clone(r.Checks)
			r.Provenance.ProbeRuns = slices.Clone(r.Provenance.ProbeRuns)
		}
		r.Checks[i].Expect = run.Result
		if !slices.Contains(r.Provenance.ProbeRuns, run.ID) {
			r.Provenance.ProbeRuns = append(r.Provenance.ProbeRuns, run.ID)
		}
		out = append(out, Baseline{Check: i + 1, Run: run.ID})
	}
	return out
}

// BaselineText says where checks' baselines came from, for history:
// "check 1 baseline from live run run_0042".
func BaselineText(bs []Baseline) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = fmt.Sprintf("check %d baseline from live run %s", b.Check, b.Run)
	}
	return strings.Join(parts, "; ")
}

// Unbaselined lists the 1-based checks of r that have no baseline and that
// no live run without an error among live ran (SetBaselines would give
// them none): those a decision must run live before it writes r, so that
// r's next verify has something to compare with.
func Unbaselined(r *Record, live []ProbeRun) []int {
	var out []int
	for i, c := range r.Checks {
		if !c.HasBaseline() && latestLive(live, c.Env, c.Input, "", true) == nil {
			out = append(out, i+1)
		}
	}
	return out
}

// NoBaselineText says which checks a decision left without a baseline,
// for the footer and the CLI: "check 3 has no baseline (it failed when
// run at save)".
func NoBaselineText(checks []int) string {
	if len(checks) == 0 {
		return ""
	}
	parts := make([]string, len(checks))
	for i, n := range checks {
		parts[i] = strconv.Itoa(n)
	}
	if len(checks) == 1 {
		return "check " + parts[0] + " has no baseline (it failed when run at save)"
	}
	return "checks " + strings.Join(parts, ", ") + " have no baseline (they failed when run at save)"
}
