package formats

// Instruction files, the export side: active records as a Markdown section
// an agent reads in AGENTS.md or CLAUDE.md — grouped by category, each
// record a bullet with its trigger and steps and its id in a comment,
// within a size budget — and the splice that replaces only memreview's
// own section of an existing file, between its markers.

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/printable"
)

// The markers around memreview's section of an instruction file.
const (
	SectionBegin = "<!-- memreview:begin"
	SectionEnd   = "<!-- memreview:end -->"
)

// DefaultSectionBytes is the size budget of an exported section: agents
// read the whole file on every task (Codex stops reading a project's
// AGENTS.md files at 32 KiB), so the bank's share stays well under it.
const DefaultSectionBytes = 16 << 10

// SectionOptions tune WriteSection.
type SectionOptions struct {
	// MaxBytes is the section's size budget (0: DefaultSectionBytes).
	MaxBytes int
	// Scope says in words what was exported ("env shop, tags orders"),
	// for the section's first line; "" for the whole bank.
	Scope string
}

// SectionReport says what a section holds and what it left out.
type SectionReport struct {
	Records  int // records in the section
	LeftOut  int // records that did not fit the budget
	Bytes    int
	MaxBytes int
}

// sectionOrder is the order categories appear in: what an agent must not
// do first, facts and relations last.
var sectionOrder = []review.Category{review.Warning, review.Convention, review.Procedure, review.Strategy,
	review.Recovery, review.Optimisation, review.Fact, review.Relation}

var sectionTitles = map[review.Category]string{review.Warning: "Warnings", review.Convention: "Conventions",
	review.Procedure: "Procedures", review.Strategy: "Strategies", review.Recovery: "Recovery",
	review.Optimisation: "Optimisations", review.Fact: "Facts", review.Relation: "Relations"}

// WriteSection renders records as memreview's section, markers included.
// The most important records (priority, then confidence) go in until one
// does not fit the budget; it and the rest are left out and counted in a
// closing comment. Text that could
// end the section early or reach a terminal raw is escaped.
func WriteSection(recs []review.Record, opt SectionOptions) ([]byte, SectionReport) {
	budget := opt.MaxBytes
	if budget <= 0 {
		budget = DefaultSectionBytes
	}
	ranked := make([]*review.Record, len(recs))
	for i := range recs {
		ranked[i] = &recs[i]
	}
	sort.SliceStable(ranked, func(i, j int) bool {
		a, b := ranked[i], ranked[j]
		if a.Priority != b.Priority {
			return a.Priority > b.Priority
		}
		if a.Confidence != b.Confidence {
			return a.Confidence > b.Confidence
		}
		return a.ID < b.ID
	})
	scope := "the whole bank"
	if opt.Scope != "" {
		scope = opt.Scope
	}
	head := SectionBegin + " (written by memreview export --format agents-md; change the bank, not this section) -->\n" +
		"## Memory\n\nReviewed lessons from the memreview bank (" + sectionText(scope) + "). Follow one when its \"When\" applies.\n"
	// Room for the closing comment and the end marker, whatever they say.
	tailRoom := len(fmt.Sprintf(leftOutComment, len(recs), budget)) + len(noRecords) + len(SectionEnd) + 1
	size := len(head) + tailRoom
	byCat := map[review.Category][]string{}
	headed := map[review.Category]bool{}
	rep := SectionReport{MaxBytes: budget}
	full := false
	for _, r := range ranked {
		item := sectionItem(r)
		need := len(item)
		if !headed[r.Category] {
			need += len("\n### " + sectionTitles[r.Category] + "\n\n")
		}
		if full || size+need > budget {
			full = true // the rest are less important: left out too
			rep.LeftOut++
			continue
		}
		size += need
		headed[r.Category] = true
		byCat[r.Category] = append(byCat[r.Category], item)
		rep.Records++
	}
	var b bytes.Buffer
	b.WriteString(head)
	for _, c := range sectionOrder {
		if len(byCat[c]) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n### %s\n\n", sectionTitles[c])
		for _, item := range byCat[c] {
			b.WriteString(item)
		}
	}
	if rep.Records == 0 {
		b.WriteString(noRecords)
	}
	if rep.LeftOut > 0 {
		fmt.Fprintf(&b, leftOutComment, rep.LeftOut, budget)
	}
	b.WriteString(SectionEnd + "\n")
	rep.Bytes = b.Len()
	return b.Bytes(), rep
}

const (
	leftOutComment = "\n<!-- %d records left out to stay within %d bytes (raise --max-bytes, or narrow with --env and --tags) -->\n"
	noRecords      = "\nNo reviewed records apply yet.\n"
)

// sectionItem is one record: its lemma as a bullet with the id and
// version in a comment, then its trigger and steps.
func sectionItem(r *review.Record) string {
	var b strings.Builder
	lines := strings.Split(strings.TrimSpace(sectionText(r.Lemma)), "\n")
	fmt.Fprintf(&b, "- %s", lines[0])
	for _, l := range lines[1:] {
		b.WriteString("\n  " + l)
	}
	fmt.Fprintf(&b, " <!-- %s v%d -->\n", sectionText(r.ID), r.Version)
	if r.Trigger != "" {
		fmt.Fprintf(&b, "  - When: %s\n", oneLineText(r.Trigger))
	}
	if len(r.Steps) > 0 {
		b.WriteString("  - Steps:\n")
		for i, s := range r.Steps {
			fmt.Fprintf(&b, "    %d. %s\n", i+1, oneLineText(s))
		}
	}
	return b.String()
}

// sectionText makes text safe inside the section: no raw control
// characters, and no "<!--" that could open a comment (or fake a marker).
func sectionText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(printable.Text(s), "<!--", "&lt;!--")
}

func oneLineText(s string) string { return strings.Join(strings.Fields(sectionText(s)), " ") }

// SpliceSection puts section in place of memreview's own section of an
// instruction file (file names it in errors), or after its text when it
// has none. Markers inside fenced code or an HTML comment are text, not
// markers; a file that ends inside either is refused. A damaged
// or repeated marker is an *InputError naming its line, and nothing is
// returned.
func SpliceSection(existing, section []byte, file string) ([]byte, error) {
	var begins, ends []int // 0-based line indexes
	var lines [][]byte     // each line as the file has it, its line ending included
	// The file is read as the agents-md reader reads it: inside
	// memreview's section only its end marker counts; outside it a code
	// fence or an HTML comment runs until it closes, and markers in them
	// are text.
	endPrefix := strings.TrimSuffix(SectionEnd, " -->")
	inSection, fence, comment, openAt := false, "", false, 0
	for i, rest := 0, existing; len(rest) > 0; i++ {
		n := bytes.IndexByte(rest, '\n') + 1
		if n == 0 {
			n = len(rest)
		}
		line := rest[:n]
		rest = rest[n:]
		if len(line) > MaxMemoryFileBytes {
			return nil, &InputError{File: file, Line: i + 1, Msg: fmt.Sprintf("a line over %d MiB", MaxMemoryFileBytes>>20)}
		}
		lines = append(lines, line)
		t := strings.TrimSpace(string(line))
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
		case comment:
			comment = !strings.Contains(t, "-->")
		case strings.HasPrefix(t, SectionBegin):
			begins = append(begins, i)
			inSection = true
		case strings.HasPrefix(t, endPrefix):
			ends = append(ends, i)
			inSection = false
		case inSection:
		case strings.HasPrefix(t, "<!--"):
			comment, openAt = !strings.Contains(t, "-->"), i
		case fenceOf(t) != "":
			fence, openAt = fenceOf(t), i
		}
	}
	damaged := func(line int, format string, args ...any) error {
		return &InputError{File: file, Line: line + 1, Msg: fmt.Sprintf(format, args...) +
			"; mend or remove memreview's markers by hand (" + SectionBegin + " … -->, " + SectionEnd + "), then export again; nothing was written"}
	}
	switch {
	case len(begins) > 1:
		return nil, damaged(begins[1], "a second memreview begin marker (the first is on line %d)", begins[0]+1)
	case len(ends) > 1:
		return nil, damaged(ends[1], "a second memreview end marker (the first is on line %d)", ends[0]+1)
	case len(begins) == 1 && len(ends) == 0:
		return nil, damaged(begins[0], "memreview's section begins here and has no end marker")
	case len(ends) == 1 && len(begins) == 0:
		return nil, damaged(ends[0], "memreview's end marker has no begin marker before it")
	case len(ends) == 1 && ends[0] < begins[0]:
		return nil, damaged(ends[0], "memreview's end marker comes before its begin marker (line %d)", begins[0]+1)
	case len(begins) == 0 && fence != "":
		// The section would land inside the code block, where its markers
		// are text: the next export would add it again.
		return nil, &InputError{File: file, Line: openAt + 1, Msg: "the code block opened here (" + fence + ") is never closed, so memreview's section would land inside it; close it, then export again; nothing was written"}
	case len(begins) == 0 && comment:
		return nil, &InputError{File: file, Line: openAt + 1, Msg: "the HTML comment opened here (<!--) is never closed (-->), so memreview's section would land inside it; close it, then export again; nothing was written"}
	}
	var out bytes.Buffer
	if len(begins) == 0 {
		out.Write(bytes.TrimRight(existing, "\n"))
		if out.Len() > 0 {
			out.WriteString("\n\n")
		}
		out.Write(section)
		return out.Bytes(), nil
	}
	for _, l := range lines[:begins[0]] {
		out.Write(l)
	}
	out.Write(section)
	for _, l := range lines[ends[0]+1:] {
		out.Write(l)
	}
	return out.Bytes(), nil
}

// fenceOf gives the fence a line opens or closes (``` or ~~~, at least
// three), or "".
func fenceOf(t string) string {
	for _, c := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, c) {
			n := len(t) - len(strings.TrimLeft(t, c[:1]))
			return strings.Repeat(c[:1], n)
		}
	}
	return ""
}
