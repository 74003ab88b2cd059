package eval

import (
	"math"
	"sort"
)

// Reward is a task run's pass-discounted reward: a pass earns more the
// fewer tool calls it used,
//
//	reward = passed × (1 − ½ × min(tool calls, budget) / budget)
//
// so a pass without a query earns 1, a pass that spent the whole budget
// ½, and anything else 0.
func Reward(tr *TaskRun, budget int) float64 {
	if !tr.Passed() || budget <= 0 {
		return 0
	}
	return 1 - 0.5*float64(min(tr.ToolCalls, budget))/float64(budget)
}

// Interval is a mean over a run's repetitions with its 95% Student-t
// interval: mean ± t(0.975, n−1) × s / √n. With fewer than two
// repetitions there is no interval (Lo and Hi are NaN).
type Interval struct {
	Mean, Lo, Hi float64
	N            int
}

// HasCI reports whether the interval exists (two repetitions or more).
func (iv Interval) HasCI() bool { return iv.N >= 2 && !math.IsNaN(iv.Lo) }

// NewInterval summarises xs, one value per repetition.
func NewInterval(xs []float64) Interval {
	iv := Interval{Mean: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), N: len(xs)}
	if len(xs) == 0 {
		return iv
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	iv.Mean = sum / float64(len(xs))
	if len(xs) < 2 {
		return iv
	}
	var ss float64
	for _, x := range xs {
		ss += (x - iv.Mean) * (x - iv.Mean)
	}
	sd := math.Sqrt(ss / float64(len(xs)-1))
	half := TQuantile975(len(xs)-1) * sd / math.Sqrt(float64(len(xs)))
	iv.Lo, iv.Hi = iv.Mean-half, iv.Mean+half
	return iv
}

// tTable is t(0.975, df) for df 1..30.
var tTable = [...]float64{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}

// TQuantile975 is the 97.5th percentile of Student's t with df degrees of
// freedom: the table for df ≤ 30, then interpolated in 1/df towards the
// normal's 1.960 (within 0.001 of the exact value).
func TQuantile975(df int) float64 {
	switch {
	case df < 1:
		return math.NaN()
	case df <= len(tTable):
		return tTable[df-1]
	}
	// Between df 30 (2.042) and ∞ (1.960), t is close to linear in 1/df.
	return 1.960 + (2.042-1.960)*30/float64(df)
}

// CondStats is one condition of a run's report. Pass rate and reward are
// means over the graded tasks of a repetition; tool calls and tokens are
// means per task; cost is the whole task set's, in dollars (NaN when the
// price table has no price for the model). Each is an Interval over the
// repetitions.
type CondStats struct {
	Name                  string
	Tasks                 int // tasks per repetition
	Runs                  int // repetitions with at least one task run
	PassRate, Reward      Interval
	ToolCalls             Interval
	InputTokens, Output   Interval
	Cost                  Interval
	Passed, Failed, Error int // task runs, all repetitions
	Ungradable            int
	Faults                FaultCounts
}

// IndexRow is the pass rate of one place in the task sequence under each
// condition (over repetitions; NaN where no graded run exists yet).
type IndexRow struct {
	Index int
	Task  string
	Pass  map[string]float64
}

// Report is what a run found.
type Report struct {
	Plan       *Plan
	Conditions []CondStats
	ByIndex    []IndexRow
	Runs       []TaskRun // every task run, in the plan's order
	Done       int
	Total      int
}

// NewReport summarises a run's task runs.
func NewReport(p *Plan, runs []TaskRun) *Report {
	rep := &Report{Plan: p, Done: len(runs), Total: len(p.Units())}
	order := map[UnitKey]int{}
	for i, u := range p.Units() {
		order[u] = i
	}
	rep.Runs = append([]TaskRun(nil), runs...)
	sort.SliceStable(rep.Runs, func(i, j int) bool { return order[rep.Runs[i].Key()] < order[rep.Runs[j].Key()] })
	for _, c := range p.Conditions {
		rep.Conditions = append(rep.Conditions, condStats(p, c, rep.Runs))
	}
	for i, t := range p.Tasks {
		row := IndexRow{Index: i + 1, Task: t.ID, Pass: map[string]float64{}}
		for _, c := range p.Conditions {
			var n, passed int
			for k := range rep.Runs {
				tr := &rep.Runs[k]
				if tr.Task == t.ID && tr.Condition == c && tr.Graded() {
					n++
					passed += btoi(tr.Passed())
				}
			}
			row.Pass[c] = math.NaN()
			if n > 0 {
				row.Pass[c] = float64(passed) / float64(n)
			}
		}
		rep.ByIndex = append(rep.ByIndex, row)
	}
	return rep
}

func condStats(p *Plan, cond string, runs []TaskRun) CondStats {
	cs := CondStats{Name: cond, Tasks: len(p.Tasks)}
	type acc struct {
		n, graded, passed int
		reward, calls     float64
		in, out           int
	}
	byRep := map[int]*acc{}
	for i := range runs {
		tr := &runs[i]
		if tr.Condition != cond {
			continue
		}
		a := byRep[tr.Rep]
		if a == nil {
			a = &acc{}
			byRep[tr.Rep] = a
		}
		a.n++
		a.calls += float64(tr.ToolCalls)
		a.in += tr.Input
		a.out += tr.Output
		cs.Faults.Add(tr.Faults)
		switch tr.Status {
		case Passed:
			cs.Passed++
		case Failed:
			cs.Failed++
		case Errored:
			cs.Error++
		case Ungradable:
			cs.Ungradable++
		}
		if tr.Graded() {
			a.graded++
			a.passed += btoi(tr.Passed())
			a.reward += Reward(tr, p.Budget)
		}
	}
	reps := make([]int, 0, len(byRep))
	for r := range byRep {
		reps = append(reps, r)
	}
	sort.Ints(reps)
	var pass, reward, calls, in, out, cost []float64
	for _, r := range reps {
		a := byRep[r]
		if a.graded > 0 {
			pass = append(pass, float64(a.passed)/float64(a.graded))
			reward = append(reward, a.reward/float64(a.graded))
		}
		calls = append(calls, a.calls/float64(a.n))
		in = append(in, float64(a.in)/float64(a.n))
		out = append(out, float64(a.out)/float64(a.n))
		c := math.NaN()
		if p.Price != nil {
			c = p.Price.Cost(a.in, a.out)
		}
		cost = append(cost, c)
	}
	cs.Runs = len(reps)
	cs.PassRate, cs.Reward = NewInterval(pass), NewInterval(reward)
	cs.ToolCalls, cs.InputTokens, cs.Output, cs.Cost = NewInterval(calls), NewInterval(in), NewInterval(out), NewInterval(cost)
	return cs
}
