package review

import (
	"context"
	"time"

	"github.com/memreview/memreview/probe"
)

// CheckTimeout bounds one live probe run started by a person or a check
// (re-probe, verify, the probe console).
const CheckTimeout = 30 * time.Second

// RunChecks runs the checks of recs (only those on env when env is not
// empty) against the environments resolve names, each within CheckTimeout,
// and returns one result per check for the record's version. It stores
// nothing; SetCheckResults does. Its probes go through probe.Run, which
// opens a pool or starts a server for each postgres or mcp check;
// RunChecksWith takes a probe.Runner's Run instead.
func RunChecks(ctx context.Context, recs []Record, env string, resolve func(string) (probe.Env, error), now func() time.Time) []CheckResult {
	return RunChecksWith(ctx, probe.Run, recs, env, resolve, now)
}

// ProbeFunc runs one probe: probe.Run, or a probe.Runner's Run.
type ProbeFunc func(ctx context.Context, env probe.Env, input string, lim probe.Limits) probe.Result

// RunChecksWith is RunChecks with run running each check's probe.
func RunChecksWith(ctx context.Context, run ProbeFunc, recs []Record, env string, resolve func(string) (probe.Env, error), now func() time.Time) []CheckResult {
	var out []CheckResult
	for _, r := range recs {
		for i, c := range r.Checks {
			if env != "" && c.Env != env {
				continue
			}
			if ctx.Err() != nil {
				return out
			}
			res := CheckResult{RecordID: r.ID, Version: r.Version, Index: i, Env: c.Env, Input: c.Input, At: now()}
			e, err := resolve(c.Env)
			if err != nil {
				res.Now = probe.Result{Env: c.Env, Input: c.Input, Error: err.Error()}
			} else {
				cctx, cancel := context.WithTimeout(ctx, CheckTimeout)
				res.Now = run(cctx, e, c.Input, probe.Limits{})
				cancel()
			}
			res.Verdict = probe.Compare(c.Expect, res.Now)
			if !c.HasBaseline() {
				res.Verdict = probe.NoBaseline
			}
			out = append(out, res)
		}
	}
	return out
}

// Holds reports whether a verdict means the check still holds.
func Holds(v probe.Verdict) bool { return v == probe.Same || v == probe.EnvChanged }

// Fails reports whether a verdict makes the record suspect: the check no
// longer holds. A check with no baseline neither holds nor fails.
func Fails(v probe.Verdict) bool { return !Holds(v) && v != probe.NoBaseline }
