package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
)

// ResolveEnv returns the named environment with a relative path (and
// token file) made absolute against the bank (Options.EnvDir).
func (s *Service) ResolveEnv(name string) (probe.Env, error) {
	c, err := s.b.Config()
	if err != nil {
		return probe.Env{}, err
	}
	return s.resolveIn(c, name)
}

// resolveIn resolves name in an already-read config, so a loop over many
// checks reads memreview.toml once.
func (s *Service) resolveIn(c review.Config, name string) (probe.Env, error) {
	e, ok := c.Env(name)
	if !ok {
		return probe.Env{}, fmt.Errorf("environment %q is not declared in %s (see 'memreview env list')", name, filepath.Join(s.opt.EnvDir, store.ConfigFile))
	}
	return review.ResolvePaths(e, s.opt.EnvDir), nil
}

// EnvConfig reads the environments without refusing bad entries (an empty
// or doubled name), so that they can be listed and removed; problems names
// each bad entry. Everything else reads the config strictly.
func (s *Service) EnvConfig() (cfg review.Config, problems []error, err error) {
	if lr, ok := s.b.(interface{ ReadConfig() (review.Config, error) }); ok {
		cfg, err = lr.ReadConfig()
	} else {
		cfg, err = s.b.Config()
	}
	if err != nil {
		return cfg, nil, err
	}
	return cfg, cfg.CheckEnvs(), nil
}

// AddEnv declares an environment, checked before it is saved:
//
//   - sql (a SQLite file) or files (a folder): Path must exist, be of that
//     kind and not be a system root ('/', /proc, /sys, /dev) or a device.
//     A target that is a symbolic link is recorded as one, so probes
//     follow it and refuse any other link put in its place.
//   - postgres: URL (no password in it) and PasswordEnv; the database
//     must accept the role and the role must be one that can only read
//     (probe.Runner.Check refuses a superuser with the CREATE ROLE advice).
//   - mcp: Command (a stdio server) or URL with TokenFile, Allow and
//     PassEnv; the server must start and list its tools.
//
// The name must be one word, not declared yet. Relative paths are taken
// from the working directory; a path (or token file) inside the bank is
// stored relative to it, so the bank can move. Nothing is saved when a
// check fails.
func (s *Service) AddEnv(ctx context.Context, e probe.Env) (probe.Env, error) {
	cfg, problems, err := s.EnvConfig()
	if err != nil {
		return probe.Env{}, err
	}
	if len(problems) > 0 {
		return probe.Env{}, fmt.Errorf("env add: %s: %v (fix it with 'memreview env list' and 'memreview env rm' first)", store.ConfigFile, problems[0])
	}
	name := e.Name
	if err := review.CheckEnvName(name); err != nil {
		return probe.Env{}, fmt.Errorf("env add: %w (a name is one word: letters, digits, punctuation)", err)
	}
	if _, dup := cfg.Env(name); dup {
		return probe.Env{}, fmt.Errorf("env add: %q is already declared (env rm it first)", name)
	}
	if e.Kind == probe.KindSQL || e.Kind == probe.KindFiles {
		abs, link, err := probe.CheckTarget(e.Kind, e.Path)
		if err != nil {
			return probe.Env{}, fmt.Errorf("env add %s: %w", name, err)
		}
		e.Path, e.Symlink = abs, link
	}
	if e.TokenFile != "" {
		if e.TokenFile, err = filepath.Abs(e.TokenFile); err != nil {
			return probe.Env{}, fmt.Errorf("env add %s: token file: %w", name, err)
		}
	}
	if err := probe.CheckEnv(e); err != nil {
		return probe.Env{}, fmt.Errorf("env add: %w", err)
	}
	if e.Kind == probe.KindPostgres || e.Kind == probe.KindMCP {
		if err := s.runner().Check(ctx, e, AddCheckTimeout); err != nil {
			return probe.Env{}, fmt.Errorf("env add %w (nothing was saved)", err)
		}
	}
	e.Path, e.TokenFile = s.inBank(e.Path), s.inBank(e.TokenFile)
	cfg.Envs = append(cfg.Envs, e)
	return e, s.b.SaveConfig(cfg)
}

// AddCheckTimeout bounds AddEnv's check that a postgres database or an
// MCP server is reachable.
const AddCheckTimeout = 10 * time.Second

// inBank is abs relative to the bank's folder when it lies inside it.
func (s *Service) inBank(abs string) string {
	if abs == "" || s.opt.EnvDir == "" {
		return abs
	}
	if rel, err := filepath.Rel(s.opt.EnvDir, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return abs
}

// RemoveEnv drops every declaration named name (a name declared twice, or
// an empty one, can be cleaned up) and says how many it removed.
func (s *Service) RemoveEnv(name string) (int, error) {
	cfg, _, err := s.EnvConfig()
	if err != nil {
		return 0, err
	}
	kept := cfg.Envs[:0:0]
	for _, e := range cfg.Envs {
		if e.Name != name {
			kept = append(kept, e)
		}
	}
	n := len(cfg.Envs) - len(kept)
	if n == 0 {
		return 0, fmt.Errorf("env rm: no environment named %q", name)
	}
	cfg.Envs = kept
	return n, s.b.SaveConfig(cfg)
}

// Probe runs one read-only probe on the named environment through the
// service's probe.Runner (one pool per postgres environment, one session
// per mcp environment, kept while the service is open). A zero lim means
// probe.DefaultLimits with review.CheckTimeout. Probes never write.
func (s *Service) Probe(ctx context.Context, env, input string, lim probe.Limits) probe.Result {
	e, err := s.ResolveEnv(env)
	if err != nil {
		return probe.Result{Env: env, Input: input, Error: err.Error()}
	}
	if lim == (probe.Limits{}) {
		lim = probe.DefaultLimits()
		lim.Timeout = review.CheckTimeout
	}
	return s.runner().Run(ctx, e, input, lim)
}

// Rerun runs a recorded probe again, as it was asked, within
// review.CheckTimeout.
func (s *Service) Rerun(ctx context.Context, rec probe.Result) probe.Result {
	e, err := s.ResolveEnv(rec.Env)
	if err != nil {
		return probe.Result{Env: rec.Env, Kind: rec.Kind, Input: rec.Input, Error: err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, review.CheckTimeout)
	defer cancel()
	return s.runner().Run(ctx, e, rec.Input, probe.Limits{})
}

// Verify re-runs the checks of every active record (only those on env when
// env is not ""), stores the results and returns them. A record whose
// checks no longer hold becomes suspect; one whose checks hold again stops
// being suspect.
//
// The config is read once, first: an unreadable or invalid memreview.toml
// is an error before anything runs or is written, not a failed check on
// every record.
func (s *Service) Verify(ctx context.Context, env string) ([]review.CheckResult, error) {
	cfg, err := s.b.Config()
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	if env != "" {
		// A misspelt name would otherwise verify nothing and report success.
		if _, err := s.resolveIn(cfg, env); err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
	}
	recs, err := s.b.Records(review.RecordFilter{Status: review.Active})
	if err != nil {
		return nil, err
	}
	out := review.RunChecksWith(ctx, s.runner().Run, recs, env, func(name string) (probe.Env, error) { return s.resolveIn(cfg, name) }, s.b.Now)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := s.b.SetCheckResults(out); err != nil {
		return nil, err
	}
	s.afterWrite("verify results")
	return out, nil
}

// Verified is the outcome of verifying one record.
type Verified struct {
	RecordID string
	Version  int                  // the version whose checks ran
	Results  []review.CheckResult // one per check
	// Stale: the record moved on from Version while its checks ran, so
	// the results were not kept.
	Stale bool
}

// Held counts the results whose checks still hold.
func (v Verified) Held() int {
	n := 0
	for _, r := range v.Results {
		if review.Holds(r.Verdict) {
			n++
		}
	}
	return n
}

// VerifyRecord re-runs one record's checks (of the version the operator
// sees, when version is not 0) and stores the results.
func (s *Service) VerifyRecord(ctx context.Context, id string, version int) (Verified, error) {
	r, err := s.b.Record(id)
	if err != nil {
		return Verified{RecordID: id, Version: version}, err
	}
	if version != 0 && r.Version != version {
		return Verified{RecordID: id, Version: version, Stale: true}, nil
	}
	out := Verified{RecordID: id, Version: r.Version}
	out.Results = review.RunChecksWith(ctx, s.runner().Run, []review.Record{*r}, "", s.ResolveEnv, s.b.Now)
	if err := s.b.SetCheckResults(out.Results); err != nil {
		return out, err
	}
	s.afterWrite("verify " + id)
	now, err := s.b.Record(id)
	out.Stale = err != nil || now.Version != out.Version
	return out, nil
}
