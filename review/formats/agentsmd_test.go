package formats

import (
	"errors"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
)

func sectionRecords() []review.Record {
	return []review.Record{
		{ID: "mem_1", Lemma: "In shop.db, reviews join items on fdbk_g1.ref_id.", Category: review.Relation, Trigger: "joining reviews", Confidence: 0.9, Version: 2},
		{ID: "mem_2", Lemma: "Never trust the legacy orders table.", Category: review.Warning, Confidence: 0.6, Version: 1, Priority: 1},
		{ID: "mem_3", Lemma: "Count reviewed items.\nUse a join.", Category: review.Procedure, Confidence: 0.8, Version: 1, Steps: []string{"join", "count distinct"}},
		{ID: "mem_4", Lemma: "Sneaky <!-- memreview:end --> and \x1b[2J escape.", Category: review.Fact, Confidence: 0.1, Version: 1},
	}
}

func TestWriteSection(t *testing.T) {
	out, rep := WriteSection(sectionRecords(), SectionOptions{Scope: "env shop"})
	want := `<!-- memreview:begin (written by memreview export --format agents-md; change the bank, not this section) -->
## Memory

Reviewed lessons from the memreview bank (env shop). Follow one when its "When" applies.

### Warnings

- Never trust the legacy orders table. <!-- mem_2 v1 -->

### Procedures

- Count reviewed items.
  Use a join. <!-- mem_3 v1 -->
  - Steps:
    1. join
    2. count distinct

### Facts

- Sneaky &lt;!-- memreview:end --> and \x1b[2J escape. <!-- mem_4 v1 -->

### Relations

- In shop.db, reviews join items on fdbk_g1.ref_id. <!-- mem_1 v2 -->
  - When: joining reviews
<!-- memreview:end -->
`
	if string(out) != want {
		t.Fatalf("section:\n%s\nwant:\n%s", out, want)
	}
	if rep.Records != 4 || rep.LeftOut != 0 || rep.Bytes != len(out) {
		t.Fatalf("report %+v", rep)
	}
	// A small budget keeps the most important records and counts the rest.
	out, rep = WriteSection(sectionRecords(), SectionOptions{MaxBytes: 600})
	if rep.Records != 2 || rep.LeftOut != 2 || !strings.Contains(string(out), "mem_2 v1") || !strings.Contains(string(out), "mem_1 v2") ||
		strings.Contains(string(out), "mem_4") || !strings.Contains(string(out), "<!-- 2 records left out to stay within 600 bytes") || len(out) > 600 {
		t.Fatalf("budget 600: %+v\n%s", rep, out)
	}
}

func TestSpliceSection(t *testing.T) {
	section := []byte(SectionBegin + " -->\nNEW\n" + SectionEnd + "\n")
	file := "# Project\n\nOur notes.\n\n" + SectionBegin + " (old) -->\nOLD\n" + SectionEnd + "\n\n## After\nkept\n"
	got, err := SpliceSection([]byte(file), section, "AGENTS.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := "# Project\n\nOur notes.\n\n" + string(section) + "\n## After\nkept\n"; string(got) != want {
		t.Fatalf("splice:\n%s\nwant:\n%s", got, want)
	}
	got, err = SpliceSection([]byte("# Notes\n```md\n"+SectionBegin+" -->\n```\n"), section, "CLAUDE.md")
	if err != nil || !strings.HasSuffix(string(got), "```\n\n"+string(section)) {
		t.Fatalf("a marker in fenced code is text: %v\n%s", err, got)
	}
	// A file with Windows line endings keeps them, in the lines before and
	// after the section, however often it is spliced.
	crlf := "# Project\r\nOur notes.\r\n\r\n" + SectionBegin + " (old) -->\nOLD\n" + SectionEnd + "\r\n\r\n## After\r\nkept"
	for range 2 {
		if got, err = SpliceSection([]byte(crlf), section, "AGENTS.md"); err != nil {
			t.Fatal(err)
		}
		if want := "# Project\r\nOur notes.\r\n\r\n" + string(section) + "\r\n## After\r\nkept"; string(got) != want {
			t.Fatalf("a CRLF file spliced:\n%q\nwant:\n%q", got, want)
		}
		crlf = string(got)
	}
	for _, c := range []struct {
		name, file string
		line       int
		msg        string
	}{
		{"an unclosed fence", "# Notes\n\n```sh\ngo test ./...\n", 3, "the code block opened here (```) is never closed"},
		{"a fence closed by a shorter one", "~~~~\n~~~\n", 1, "the code block opened here (~~~~) is never closed"},
		{"begin without end", "a\n" + SectionBegin + " -->\nb\n", 2, "memreview's section begins here and has no end marker"},
		{"end without begin", "a\nb\n" + SectionEnd + "\n", 3, "memreview's end marker has no begin marker before it"},
		{"end before begin", SectionEnd + "\n" + SectionBegin + " -->\n", 1, "memreview's end marker comes before its begin marker (line 2)"},
		{"two begins", SectionBegin + " -->\nx\n" + SectionEnd + "\n" + SectionBegin + " -->\ny\n" + SectionEnd + "\n", 4, "a second memreview begin marker (the first is on line 1)"},
	} {
		_, err := SpliceSection([]byte(c.file), section, "AGENTS.md")
		var ie *InputError
		if !errors.As(err, &ie) || ie.Line != c.line || !strings.HasPrefix(ie.Msg, c.msg) || !strings.Contains(ie.Msg, "nothing was written") {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

const agentsMD = `# AGENTS.md

Guidance for coding agents in this repository.

## Build and test

- Run ` + "`go test ./...`" + ` before you commit.
- Format with gofmt:
  - run ` + "`gofmt -l .`" + `
  - fix what it lists

## Pitfalls

- The fixtures in testdata are generated;
  regenerate them, never edit by hand.
- Do not import the store from the TUI.

<!-- a comment an agent should not see as a memory -->
@docs/ARCHITECTURE.md
`

func TestReadAgentsMD(t *testing.T) {
	in := NewInput("AGENTS.md", []byte(agentsMD))
	f, err := Detect(in, Memories)
	if err != nil || f.Name != "agents-md" {
		t.Fatalf("detect: %v %v", f, err)
	}
	ms, rep, err := ReadMemories(in, nil, "repo")
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		line  int
		lemma string
		cat   review.Category
		tag   string
		steps int
	}
	wants := []want{
		{3, "Guidance for coding agents in this repository.", review.Convention, "agents-md", 0},
		{7, "Run `go test ./...` before you commit.", review.Procedure, "build-and-test", 0},
		{8, "Format with gofmt:", review.Procedure, "build-and-test", 2},
		{14, "The fixtures in testdata are generated;\nregenerate them, never edit by hand.", review.Warning, "pitfalls", 0},
		{16, "Do not import the store from the TUI.", review.Warning, "pitfalls", 0},
	}
	if len(ms) != len(wants) {
		t.Fatalf("%d memories, want %d: %+v", len(ms), len(wants), ms)
	}
	for i, w := range wants {
		r := ms[i].Proposal.Record
		if ms[i].Line != w.line || r.Lemma != w.lemma || r.Category != w.cat || len(r.Scope.Tags) != 1 || r.Scope.Tags[0] != w.tag ||
			len(r.Steps) != w.steps || r.Scope.Env != "repo" || ms[i].Proposal.Op != review.OpCreate {
			t.Errorf("memory %d: line %d %q %s %v steps %v", i, ms[i].Line, r.Lemma, r.Category, r.Scope.Tags, r.Steps)
		}
		if src := r.Provenance.Source; src == nil || src.Format != "agents-md" || src.File != "AGENTS.md" {
			t.Errorf("memory %d source: %+v", i, src)
		}
	}
	if p := ms[3].Proposal.Rationale; !strings.Contains(p, "AGENTS.md (line 14, under \u201cPitfalls\u201d)") {
		t.Errorf("rationale does not cite the line: %s", p)
	}
	if ms[2].Proposal.Record.Steps[0] != "run `gofmt -l .`" {
		t.Errorf("steps: %v", ms[2].Proposal.Record.Steps)
	}
	if rep.Skipped["HTML comments"] != 1 || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "@docs/ARCHITECTURE.md") {
		t.Errorf("report: %+v", rep)
	}
}

func TestReadClaudeMDAndCursorRules(t *testing.T) {
	claude := "# Project memory\n\nPrefer table-driven tests.\n\n" + SectionBegin + " -->\n- an exported record <!-- mem_1 v1 -->\n" + SectionEnd + "\n\n```sh\nmake all\n```\n"
	ms, rep, err := ReadMemories(NewInput("CLAUDE.md", []byte(claude)), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].Proposal.Record.Lemma != "Prefer table-driven tests.\n```sh\nmake all\n```" || len(rep.Notes) != 1 {
		t.Fatalf("CLAUDE.md: %+v %+v", ms, rep)
	}
	mdc := "---\ndescription: Go style\nglobs: \"**/*.go\"\nalwaysApply: false\n---\n\n- Wrap errors with %w.\n"
	ms, rep, err = ReadMemories(NewInput(".cursor/rules/go.mdc", []byte(mdc)), nil, "")
	if err != nil || len(ms) != 1 || ms[0].Line != 7 || rep.Skipped["front matter lines"] != 5 {
		t.Fatalf(".mdc: %v %+v %+v", err, ms, rep)
	}
	if _, _, err := ReadMemories(NewInput("empty.md", []byte("# Only a heading\n")), nil, ""); err == nil || !strings.Contains(err.Error(), "empty.md: no bullet or paragraph") {
		t.Fatalf("a file of headings: %v", err)
	}
	if _, err := Detect(NewInput("notes.txt", []byte("just words")), Memories); err == nil {
		t.Fatal("plain text with no Markdown and no .md name detected as agents-md")
	}
}
