package app

import (
	"math"
	"time"
)

// The JSON of eval and eval show (--json): the run, one object per
// condition with the figures of its table, and one per task run.
type (
	EvalJSON struct {
		Run        string         `json:"run"`
		Conditions []EvalCondJSON `json:"conditions"`
		Tasks      []EvalTaskJSON `json:"tasks"`
	}
	// EvalCondJSON is one condition: means over the run's repetitions
	// (null where nothing was graded), ci95 the pass rate's 95% Student-t
	// interval, within [0, 1] (null with one repetition), cost_usd the whole task set's
	// estimated cost per repetition (null without a price).
	EvalCondJSON struct {
		Name         string      `json:"name"`
		Tasks        int         `json:"tasks"`
		PassRate     *float64    `json:"pass_rate"`
		CI95         *[2]float64 `json:"ci95"`
		Reward       *float64    `json:"reward"`
		ToolCalls    *float64    `json:"tool_calls"`
		InputTokens  *float64    `json:"input_tokens"`
		OutputTokens *float64    `json:"output_tokens"`
		Runs         int         `json:"runs"`
		CostUSD      *float64    `json:"cost_usd"`
		Ungradable   int         `json:"ungradable"`
		Errors       int         `json:"errors"`
		Faults       EvalFaults  `json:"faults"`
	}
	// EvalTaskJSON is one task run; run is its repetition, from 1.
	EvalTaskJSON struct {
		ID        string `json:"id"`
		Condition string `json:"condition"`
		Run       int    `json:"run"`
		Passed    bool   `json:"passed"`
		ToolCalls int    `json:"tool_calls"`
		Status    string `json:"status"`
	}
	// EvalListJSON is one run of eval list --json.
	EvalListJSON struct {
		Run        string    `json:"run"`
		Started    time.Time `json:"started"`
		Conditions []string  `json:"conditions"`
		Done       int       `json:"done"`
		Total      int       `json:"total"`
		Running    bool      `json:"running"`
		Model      string    `json:"model"`
		Error      string    `json:"error,omitempty"`
	}
)

// JSON is the report as eval --json prints it.
func (r *EvalReport) JSON() EvalJSON {
	out := EvalJSON{Run: r.Plan.ID, Conditions: []EvalCondJSON{}, Tasks: []EvalTaskJSON{}}
	for _, c := range r.Conditions {
		cj := EvalCondJSON{Name: c.Name, Tasks: c.Tasks, PassRate: num(c.PassRate.Mean), Reward: num(c.Reward.Mean),
			ToolCalls: num(c.ToolCalls.Mean), InputTokens: num(c.InputTokens.Mean), OutputTokens: num(c.Output.Mean),
			Runs: c.Runs, CostUSD: num(c.Cost.Mean), Ungradable: c.Ungradable, Errors: c.Error, Faults: c.Faults}
		if c.PassRate.HasCI() {
			cj.CI95 = &[2]float64{max(c.PassRate.Lo, 0), min(c.PassRate.Hi, 1)}
		}
		out.Conditions = append(out.Conditions, cj)
	}
	for i := range r.Runs {
		tr := &r.Runs[i]
		out.Tasks = append(out.Tasks, EvalTaskJSON{ID: tr.Task, Condition: tr.Condition, Run: tr.Rep, Passed: tr.Passed(), ToolCalls: tr.ToolCalls, Status: string(tr.Status)})
	}
	return out
}

// ListJSON is a listing as eval list --json prints it.
func ListJSON(runs []EvalRunInfo) []EvalListJSON {
	out := make([]EvalListJSON, 0, len(runs))
	for _, r := range runs {
		j := EvalListJSON{Run: r.ID, Started: r.Started, Conditions: r.Conditions, Done: r.Done, Total: r.Total, Running: r.Running, Model: r.Model}
		if j.Conditions == nil {
			j.Conditions = []string{}
		}
		if r.Err != nil {
			j.Error = r.Err.Error()
		}
		out = append(out, j)
	}
	return out
}

// num is x for JSON: nil (null) when it is not a number.
func num(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}
