package formats

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzSpliceSection: whatever the instruction file holds, splicing
// memreview's section into it is refused with an InputError naming the
// file, or gives a file that holds the section once, where splicing it
// again changes nothing (an export run twice writes the same file), and
// whose text before the section is the file's own.
func FuzzSpliceSection(f *testing.F) {
	section, _ := WriteSection(sectionRecords(), SectionOptions{})
	for _, s := range []string{
		"", "# Notes\n\n- keep it short\n", "# A\r\nwindows lines\r\n",
		"```\n" + SectionBegin + " -->\n```\n", "```\nan unclosed fence\n",
		SectionBegin + " -->\nold\n" + SectionEnd + "\nafter\n", SectionEnd + "\n", "~~~~\n~~~\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, existing []byte) {
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
