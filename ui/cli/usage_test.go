package cli

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestHelpFits: 'memreview --help' fits 80 columns, and each command's
// summary shows whole under its name, one sentence ending in a full stop
// (issue 23 item 12: summaries ended mid-sentence at the terminal's edge).
func TestHelpFits(t *testing.T) {
	r := mr(t, "", "--help") // usage goes to stderr
	out := r.stderr + r.stdout
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > usageWidth {
			t.Errorf("a line of %d columns: %q", n, l)
		}
	}
	listed := strings.Join(strings.Fields(out), " ")
	for _, c := range commands() {
		if !strings.HasSuffix(c.summary, ".") || strings.Count(strings.TrimSuffix(c.summary, "."), ". ") > 0 {
			t.Errorf("%s: the summary is not one sentence: %q", c.name, c.summary)
		}
		if !strings.Contains(listed, c.name+" "+c.summary) {
			t.Errorf("--help does not show %s's summary whole: %q", c.name, c.summary)
		}
	}
}

// TestSummariesAreSentences: every command's and subcommand's summary
// (env add, token revoke, embeddings wait) is one whole sentence: a
// capital first, a full stop last and none between.
func TestSummariesAreSentences(t *testing.T) {
	n := 0
	var check func(name string, c *command)
	check = func(name string, c *command) {
		n++
		s := c.summary
		if r, _ := utf8.DecodeRuneInString(s); !unicode.IsUpper(r) || !strings.HasSuffix(s, ".") ||
			strings.Count(strings.TrimSuffix(s, "."), ". ") > 0 {
			t.Errorf("%s: the summary is not one whole sentence: %q", name, s)
		}
		for _, sub := range c.subs {
			check(name+" "+sub.name, sub)
		}
	}
	for _, c := range commands() {
		check(c.name, c)
	}
	if n <= len(commands()) {
		t.Errorf("checked %d summaries for %d commands: no subcommand was reached", n, len(commands()))
	}
}
