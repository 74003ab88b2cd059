// Package pg is the driver of postgres environments: it classifies a
// probe (one reading statement, or a refusal before anything is sent),
// keeps a small pool of checked, read-only connections per environment,
// runs the statement within the probe's limits and hashes the schema the
// probe role sees.
//
// Linking it in registers the postgres kind with probe (init below), so
// that a probe.Runner runs postgres probes; the program's service,
// review/app, imports it.
package pg

import (
	"context"
	"errors"
	"fmt"
	"hash"

	"github.com/memreview/memreview/probe"
)

func init() {
	probe.Register(probe.KindPostgres, probe.Driver{
		Refuse: func(input string) error { _, err := Classify(input); return err },
		Open:   openConn,
	})
}

// conn is a postgres environment's probe.Conn: its pool.
type conn struct{ p *Pool }

func openConn(env probe.Env) (probe.Conn, error) {
	p, err := Open(Target{URL: env.URL, PasswordEnv: env.PasswordEnv})
	if err != nil {
		return nil, err
	}
	return conn{p}, nil
}

// Run classifies input and runs it on the pool.
func (c conn) Run(ctx context.Context, input string, lim probe.Limits, res *probe.Result) error {
	st, err := Classify(input)
	if err != nil {
		return err
	}
	out, err := c.p.Query(ctx, st, Limits{Timeout: lim.Timeout, MaxRows: lim.MaxRows, MaxBytes: lim.MaxBytes})
	if err != nil {
		return timedOut(err)
	}
	res.Columns, res.Rows, res.Truncated = out.Columns, out.Rows, out.Truncated
	return nil
}

func (c conn) Fingerprint(ctx context.Context, h hash.Hash) error { return c.p.SchemaHash(ctx, h) }

// Health connects, which runs the role check.
func (c conn) Health(ctx context.Context) (string, error) {
	if err := c.p.Check(ctx); err != nil {
		return "", timedOut(err)
	}
	return "connected as a read-only role to " + c.p.Where(), nil
}

func (c conn) Close() error {
	c.p.Close()
	return nil
}

// timedOut marks a statement the server stopped at the probe's time limit
// as a deadline, so probe names the limit in the result's sentence.
func timedOut(err error) error {
	if errors.Is(err, ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w (%w)", err, context.DeadlineExceeded)
	}
	return err
}
