package cli

import (
	"strings"
	"testing"
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
