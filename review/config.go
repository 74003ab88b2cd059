package review

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review/printable"
)

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
// a bad name (CheckEnvName), a name declared twice, or a declaration its
// kind refuses (probe.CheckEnv: an unknown kind, a missing path or url, a
// field of another kind, a password in a URL). Each error names the entry
// (env #N).
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
		default:
			if err := probe.CheckEnv(e); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", at, err))
			}
		}
		if _, dup := first[e.Name]; !dup {
			first[e.Name] = i + 1
		}
	}
	return errs
}

// ResolvePaths makes e's relative file names absolute against dir (the
// bank's folder): a sql or files environment's path, an mcp environment's
// token file. Empty names stay empty; an empty dir changes nothing.
func ResolvePaths(e probe.Env, dir string) probe.Env {
	abs := func(p string) string {
		if p == "" || dir == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	e.Path, e.TokenFile = abs(e.Path), abs(e.TokenFile)
	return e
}
