package app

// Export to instruction files: the bank's active records as the Markdown
// section an agent reads in AGENTS.md or CLAUDE.md, written alone or into
// an existing file between memreview's markers.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/formats"
)

// FormatAgentsMD is the instruction-file format of export and import.
const FormatAgentsMD = "agents-md"

// SectionOptions choose what an instruction-file export holds.
type SectionOptions struct {
	Env      string   // records for this environment and those for any; "": every environment
	Tags     []string // records with one of these tags, and those with none; nil: all
	MaxBytes int      // the section's size budget (0: formats.DefaultSectionBytes)
}

// SectionReport says what an exported section holds.
type SectionReport = formats.SectionReport

// ExportSection renders the active records opt selects (records a check
// failed for at the last verify are left out) as memreview's section.
func (s *Service) ExportSection(opt SectionOptions) ([]byte, SectionReport, error) {
	recs, err := s.b.Records(review.RecordFilter{Status: review.Active})
	if err != nil {
		return nil, SectionReport{}, err
	}
	kept := recs[:0]
	for _, r := range recs {
		if r.Suspect || opt.Env != "" && r.Scope.Env != "" && r.Scope.Env != opt.Env {
			continue
		}
		if len(opt.Tags) > 0 && len(r.Scope.Tags) > 0 && !slices.ContainsFunc(r.Scope.Tags, func(t string) bool { return slices.Contains(opt.Tags, t) }) {
			continue
		}
		kept = append(kept, r)
	}
	var scope []string
	if opt.Env != "" {
		scope = append(scope, "env "+opt.Env)
	}
	if len(opt.Tags) > 0 {
		scope = append(scope, "tags "+strings.Join(opt.Tags, ", "))
	}
	out, rep := formats.WriteSection(kept, formats.SectionOptions{MaxBytes: opt.MaxBytes, Scope: strings.Join(scope, "; ")})
	return out, rep, nil
}

// ExportSectionInto puts the section in file: in place of memreview's own
// section between its markers, else after the file's text (a missing file
// is created). Damaged or repeated markers are an *InputError naming the
// line, and the file is left as it was; the file is replaced atomically.
func (s *Service) ExportSectionInto(opt SectionOptions, file string) (SectionReport, error) {
	section, rep, err := s.ExportSection(opt)
	if err != nil {
		return rep, err
	}
	existing, err := os.ReadFile(file)
	mode := os.FileMode(0o644)
	switch {
	case os.IsNotExist(err):
	case err != nil:
		return rep, fmt.Errorf("export: %w", err)
	default:
		if st, err := os.Stat(file); err == nil {
			mode = st.Mode().Perm()
		}
	}
	out, err := formats.SpliceSection(existing, section, file)
	if err != nil {
		return rep, err
	}
	return rep, writeAtomic(file, out, mode)
}

// writeAtomic replaces file with data: a temporary file beside it,
// fsynced, then renamed over it.
func writeAtomic(file string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(file), ".memreview-"+filepath.Base(file)+"-*")
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), mode)
	}
	if err == nil {
		err = os.Rename(f.Name(), file)
	}
	if err != nil {
		return fmt.Errorf("export: write %s: %w", file, err)
	}
	return nil
}
