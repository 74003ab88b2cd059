package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/BurntSushi/toml"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

// Config reads the bank's memreview.toml and checks it: a missing file is
// an empty config; a syntax error, an unknown setting or a bad environment
// (CheckEnvs) is an error naming the file.
func (s *Store) Config() (review.Config, error) {
	c, err := s.ReadConfig()
	if err != nil {
		return c, err
	}
	if errs := c.CheckEnvs(); len(errs) > 0 {
		return c, fmt.Errorf("%s: %w (fix it with 'memreview env list' and 'memreview env rm')", filepath.Join(s.dir, ConfigFile), errs[0])
	}
	return c, nil
}

// ReadConfig reads memreview.toml without checking its environments, so
// that 'env list' can show a bad entry and 'env rm' remove it. Syntax
// errors and unknown settings are still errors.
//
// The file is read each time; what it says is decoded once per content
// (the last file's bytes and their result are kept, and a copy of it
// returned), since the service reads the settings on every retrieval.
func (s *Store) ReadConfig() (review.Config, error) {
	path := filepath.Join(s.dir, ConfigFile)
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return review.Config{}, nil
	}
	if err != nil {
		return review.Config{}, fmt.Errorf("cannot read the bank's settings: %w", err)
	}
	s.cfgMu.Lock()
	defer s.cfgMu.Unlock()
	if s.cfgRaw == nil || !bytes.Equal(b, s.cfgRaw) {
		s.cfg, s.cfgErr = decodeConfig(path, b)
		s.cfgRaw = b
	}
	return s.cfg.Clone(), s.cfgErr
}

// decodeConfig decodes and checks the bytes of memreview.toml at path.
func decodeConfig(path string, b []byte) (review.Config, error) {
	var c review.Config
	md, err := toml.Decode(string(b), &c)
	if err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return c, fmt.Errorf("%s: unknown setting %q", path, und[0].String())
	}
	if m := c.Hygiene.MemoryLimitMB; m < -1 || (m > 0 && m < 256) {
		return c, fmt.Errorf("%s: [hygiene] field \"memory_limit_mb\": %d is not a limit (at least 256 MiB, or -1 for none)", path, m)
	}
	if c.Hygiene.MaxUnusedDays < 0 {
		return c, fmt.Errorf("%s: [hygiene] field \"max_unused_days\": %d is negative", path, c.Hygiene.MaxUnusedDays)
	}
	if err := c.Eval.CheckPrices(); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// SaveConfig writes memreview.toml atomically (temp file, fsync, rename).
func (s *Store) SaveConfig(c review.Config) error {
	var buf bytes.Buffer
	buf.WriteString("# memreview bank settings: environments (probe targets) and curator defaults.\n")
	if err := toml.NewEncoder(&buf).Encode(c); err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(s.dir, ConfigFile), buf.Bytes())
}

// ResolveEnv returns the named environment with its path (and token
// file) made absolute against the bank directory.
func (s *Store) ResolveEnv(name string) (probe.Env, error) {
	c, err := s.Config()
	if err != nil {
		return probe.Env{}, err
	}
	return s.resolveIn(c, name)
}

// resolveIn is ResolveEnv against a config already read.
func (s *Store) resolveIn(c review.Config, name string) (probe.Env, error) {
	e, ok := c.Env(name)
	if !ok {
		return probe.Env{}, fmt.Errorf("environment %q is not declared in %s (see 'memreview env list')", name, filepath.Join(s.dir, ConfigFile))
	}
	return review.ResolvePaths(e, s.dir), nil
}

func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
