package review

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review/printable"
)

// Config reads the bank's memreview.toml and checks it: a missing file is
// an empty config; a syntax error, an unknown setting or a bad environment
// (CheckEnvs) is an error naming the file.
func (s *Store) Config() (Config, error) {
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
func (s *Store) ReadConfig() (Config, error) {
	var c Config
	path := filepath.Join(s.dir, ConfigFile)
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("cannot read the bank's settings: %w", err)
	}
	md, err := toml.Decode(string(b), &c)
	if err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return c, fmt.Errorf("%s: unknown setting %q", path, und[0].String())
	}
	if c.Hygiene.MaxUnusedDays < 0 {
		return c, fmt.Errorf("%s: [hygiene] field \"max_unused_days\": %d is negative", path, c.Hygiene.MaxUnusedDays)
	}
	return c, nil
}

// CheckEnvName says what is wrong with an environment name: empty, white
// space or control characters, or longer than 64 bytes; nil when it is fine.
func CheckEnvName(name string) error {
	switch {
	case name == "":
		return errors.New("the name is empty")
	case len(name) > 64:
		return fmt.Errorf("the name %q is longer than 64 bytes", name[:64])
	case strings.ContainsFunc(name, func(r rune) bool { return unicode.IsSpace(r) || printable.Unsafe(r) || r == utf8.RuneError }):
		return fmt.Errorf("the name %q holds white space or control characters", name)
	case !utf8.ValidString(name):
		return fmt.Errorf("the name %q is not valid UTF-8", name)
	}
	return nil
}

// CheckEnvs returns what is wrong with each environment entry, in order:
// a bad name (CheckEnvName), a name declared twice, a kind other than sql
// or files, a missing path. Each error names the entry (env #N).
func (c Config) CheckEnvs() []error {
	var errs []error
	first := map[string]int{}
	for i, e := range c.Envs {
		at := fmt.Sprintf("env #%d", i+1)
		if err := CheckEnvName(e.Name); err != nil {
			errs = append(errs, fmt.Errorf("%s: field \"name\": %w", at, err))
			continue
		}
		at = fmt.Sprintf("env #%d (%q)", i+1, e.Name)
		switch j, dup := first[e.Name]; {
		case dup:
			errs = append(errs, fmt.Errorf("%s: field \"name\": %q is also the name of env #%d", at, e.Name, j))
		case e.Kind != probe.KindSQL && e.Kind != probe.KindFiles:
			errs = append(errs, fmt.Errorf("%s: field \"kind\": %q is not sql or files", at, e.Kind))
		case e.Path == "":
			errs = append(errs, fmt.Errorf("%s: field \"path\" is missing", at))
		}
		if _, dup := first[e.Name]; !dup {
			first[e.Name] = i + 1
		}
	}
	return errs
}

// SaveConfig writes memreview.toml atomically (temp file, fsync, rename).
func (s *Store) SaveConfig(c Config) error {
	var buf bytes.Buffer
	buf.WriteString("# memreview bank settings: environments (probe targets) and curator defaults.\n")
	if err := toml.NewEncoder(&buf).Encode(c); err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(s.dir, ConfigFile), buf.Bytes())
}

// ResolveEnv returns the named environment with its path made absolute
// against the bank directory.
func (s *Store) ResolveEnv(name string) (probe.Env, error) {
	c, err := s.Config()
	if err != nil {
		return probe.Env{}, err
	}
	return s.resolveIn(c, name)
}

// resolveIn is ResolveEnv against a config already read.
func (s *Store) resolveIn(c Config, name string) (probe.Env, error) {
	e, ok := c.Env(name)
	if !ok {
		return probe.Env{}, fmt.Errorf("environment %q is not declared in %s (see 'memreview env list')", name, filepath.Join(s.dir, ConfigFile))
	}
	if !filepath.IsAbs(e.Path) {
		e.Path = filepath.Join(s.dir, e.Path)
	}
	return e, nil
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

// OperatorName picks who is deciding: the --operator flag, else
// $MEMREVIEW_OPERATOR, else the OS user.
func OperatorName(flag string) string {
	if flag != "" {
		return flag
	}
	if v := os.Getenv("MEMREVIEW_OPERATOR"); v != "" {
		return v
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if v := os.Getenv("USER"); v != "" {
		return v
	}
	return "operator"
}
