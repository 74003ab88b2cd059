package review

import (
	"errors"
	"fmt"
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
