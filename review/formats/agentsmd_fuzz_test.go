package formats

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
)

// FuzzSpliceSection: whatever the instruction file holds, splicing
// memreview's section into it is refused with an InputError naming the
// file, or gives a file that holds the section once, where splicing it
// again changes nothing (an export run twice writes the same file), and
// whose text before the section is the file's own.
func FuzzSpliceSection(f *testing.F) {
	for _, s := range []string{
		"", "# Notes\n\n- keep it short\n", "# A\r\nwindows lines\r\n",
		"```\n" + SectionBegin + " -->\n```\n", "```\nan unclosed fence\n",
		SectionBegin + " -->\nold\n" + SectionEnd + "\nafter\n", SectionEnd + "\n", "~~~~\n~~~\n",
		"<!--\n" + SectionBegin + " -->\nOLD\n" + SectionEnd + "\n", "para\n<!-- open comment", "<!-->\n",
	} {
		f.Add([]byte(s), "Count reviewed items.\n```\nUse a join.")
	}
	f.Fuzz(func(t *testing.T, existing []byte, lemma string) {
		// The section holds a record of any text (a lemma may open a fence
		// or a comment of its own).
		recs := append(sectionRecords(), review.Record{ID: "mem_f", Lemma: lemma, Category: review.Fact, Confidence: 0.5, Version: 1})
		section, _ := WriteSection(recs, SectionOptions{})
		out, err := SpliceSection(existing, section, "AGENTS.md")
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.File != "AGENTS.md" {
				t.Fatalf("refused without naming the file: %v", err)
			}
			return
		}
		if n := bytes.Count(out, section); n != 1 {
			t.Fatalf("the spliced file holds the section %d times:\n%q", n, out)
		}
		at := bytes.Index(out, section)
		if before := bytes.TrimRight(out[:at], "\n"); !bytes.HasPrefix(existing, before) {
			t.Fatalf("the text before the section is not the file's own:\nfile: %q\nout:  %q", existing, out)
		}
		if after := out[at+len(section):]; !bytes.HasSuffix(existing, after) {
			t.Fatalf("the text after the section is not the file's own:\nfile: %q\nout:  %q", existing, out)
		}
		again, err := SpliceSection(out, section, "AGENTS.md")
		if err != nil {
			t.Fatalf("the spliced file is refused the second time: %v\n%q", err, out)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("splicing twice changed the file:\nonce:  %q\ntwice: %q", out, again)
		}
	})
}

// memoryLemmas reads data as an instruction file: its memories' texts
// and steps, or the error.
func memoryLemmas(data []byte) ([]string, error) {
	format, _ := Lookup("agents-md")
	ms, _, err := ReadMemories(NewInput("AGENTS.md", data), format, "")
	var out []string
	for _, m := range ms {
		out = append(out, m.Proposal.Record.Lemma+"\x00"+strings.Join(m.Proposal.Record.Steps, "\x00"))
	}
	return out, err
}

// FuzzSpliceThenRead: importing an instruction file after memreview's
// section was spliced into it reads the same memories as before (the
// section is memreview's own and is not read; the file's own bullets and
// paragraphs are read as they were).
func FuzzSpliceThenRead(f *testing.F) {
	section, _ := WriteSection(sectionRecords(), SectionOptions{})
	for _, s := range []string{agentsMD, "- one\n- two", "para\n<!-- open comment", "# H\n\n- item\n  - step", "text\r\n- a\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, existing []byte) {
		out, err := SpliceSection(existing, section, "AGENTS.md")
		if err != nil {
			return
		}
		want, werr := memoryLemmas(existing)
		if werr != nil && !strings.Contains(werr.Error(), "no bullet or paragraph") {
			return // not an instruction file (JSON, say): nothing to compare
		}
		got, gerr := memoryLemmas(out)
		if (werr == nil) != (gerr == nil) || !slices.Equal(got, want) {
			t.Fatalf("the file reads differently once the section is in it:\nfile: %q\n%q, %v\nout: %q\n%q, %v", existing, want, werr, out, got, gerr)
		}
	})
}
