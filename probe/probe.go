package probe

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/memreview/memreview/probe/docs"
)

// Limits bound one probe run. A zero field means its default.
type Limits struct {
	Timeout  time.Duration // wall-clock limit of the run
	MaxRows  int           // rows (sql, csv, ls) or lines (grep) kept
	MaxBytes int           // bytes of output kept (text, or cells of rows)
}

// The defaults of DefaultLimits.
const (
	defaultTimeout  = 5 * time.Second
	defaultMaxRows  = 1000
	defaultMaxBytes = 1 << 20
)

// DefaultLimits returns the limits used when a field is zero: 5 s, 1,000
// rows, 1 MiB.
func DefaultLimits() Limits {
	return Limits{Timeout: defaultTimeout, MaxRows: defaultMaxRows, MaxBytes: defaultMaxBytes}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.Timeout <= 0 {
		l.Timeout = d.Timeout
	}
	if l.MaxRows <= 0 {
		l.MaxRows = d.MaxRows
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	return l
}

// Run runs one probe against env and never returns a Go error: a refusal or
// failure is a sentence in Result.Error. env.Path must already be absolute.
// The fingerprint is taken after the run, so a re-run can tell whether the
// environment changed underneath an unchanged output.
//
// Run is stateless: a postgres or mcp probe through it opens a pool or
// starts a server for that one probe and closes it after. A program that
// probes those kinds more than once holds a Runner instead.
func Run(ctx context.Context, env Env, input string, lim Limits) Result {
	if env.Kind == KindPostgres || env.Kind == KindMCP {
		r := NewRunner()
		defer r.Close()
		return r.Run(ctx, env, input, lim)
	}
	return run(ctx, nil, env, input, lim)
}

// run is Run with rn holding the pools and sessions (nil for sql and
// files).
func run(ctx context.Context, rn *Runner, env Env, input string, lim Limits) Result {
	lim = lim.withDefaults()
	r := Result{Env: env.Name, Kind: env.Kind, Input: input}
	start := time.Now()
	runCtx, cancel := withTimeout(ctx, env, lim)
	var err error
	switch env.Kind {
	case KindSQL:
		if _, err = checkedInfo(env); err == nil {
			err = runSQL(runCtx, env.Path, input, lim, &r)
		}
	case KindFiles:
		err = runFiles(runCtx, env, input, lim, &r)
	case KindPostgres, KindMCP:
		err = rn.runStateful(runCtx, env, input, lim, &r)
	default:
		err = fmt.Errorf("environment %q has unknown kind %q; use %s", env.Name, env.Kind, kindList())
	}
	cancel()
	r.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		r.Columns, r.Rows, r.Text, r.Truncated, r.Note = nil, nil, "", false, ""
		r.Error = describe(ctx, runCtx, err, lim)
	}
	if slices.Contains(Kinds, env.Kind) {
		fpCtx, cancel := context.WithTimeout(ctx, lim.Timeout)
		var fp string
		var ferr error
		if rn != nil {
			fp, ferr = rn.Fingerprint(fpCtx, env)
		} else {
			fp, ferr = Fingerprint(fpCtx, env)
		}
		if ferr == nil {
			r.Fingerprint = fp
		}
		cancel()
	}
	return r
}

// describe turns err into the sentence stored in Result.Error, naming the
// time limit when it was the cause. A driver whose server stopped a
// statement at the time limit wraps context.DeadlineExceeded.
func describe(parent, run context.Context, err error, lim Limits) string {
	var preparing *docs.PreparingError
	switch {
	case parent.Err() != nil:
		return "canceled: the probe was stopped before it finished"
	case errors.As(err, &preparing): // not a probe that ran too long
		return err.Error()
	case errors.Is(run.Err(), context.DeadlineExceeded), errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("timed out after %s: the probe was stopped at its time limit", lim.Timeout)
	}
	return err.Error()
}

// refusedf builds the error of a refused request.
func refusedf(format string, args ...any) error {
	return fmt.Errorf("refused: "+format, args...)
}
