package ui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui/uitest"
)

// TestFocusFollowsScreen visits the bank, selects a record, and goes back
// to the review screen: the console attaches to the record while the bank
// was shown, then to the review screen's proposal again, though that
// screen loaded nothing new.
func TestFocusFollowsScreen(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := started(t, w.deps, 200, 60)
	cur := sample.ProposalIDs[0]
	attach := func(keys ...string) string {
		t.Helper()
		for _, k := range keys {
			m = drive(t, m, uitest.Key(k))
		}
		v := ansi.Strip(m.View())
		if !strings.Contains(v, "attach → ") {
			t.Fatalf("after %v the console shows no attach target:\n%s", keys, v)
		}
		return v
	}
	if v := attach("3"); !strings.Contains(v, "attach → proposal "+cur) {
		t.Fatalf("the console does not attach to %s at the start:\n%s", cur, v)
	}
	v := attach("2", "j", "3")
	rec := regexp.MustCompile(`attach → record (mem_\S+)`).FindStringSubmatch(v)
	if rec == nil {
		t.Fatalf("after selecting a record in the bank the console does not attach to it:\n%s", v)
	}
	if v := attach("1", "3"); !strings.Contains(v, "attach → proposal "+cur) {
		t.Errorf("back from the bank (record %s), the console does not attach to %s:\n%s", rec[1], cur, v)
	}
	// And back to the bank: its record again.
	if v := attach("2", "3"); !strings.Contains(v, "attach → record "+rec[1]) {
		t.Errorf("back on the bank, the console does not attach to %s:\n%s", rec[1], v)
	}
}
