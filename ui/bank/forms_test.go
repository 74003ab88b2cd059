package bank

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/ui/uitest"
)

// TestMergeFormWarnsOfDrops: the bank's merge form, like the review
// screen's merge editor, says which retired record's lemma the edit no
// longer says, and an emptied lemma is refused with nothing merged.
func TestMergeFormWarnsOfDrops(t *testing.T) {
	m, deps := openBank(t)
	a := m.selected()
	sendKey(t, m, space) // mark a; the cursor moves to b
	b := m.selected()
	sendKey(t, m, uitest.Key("m"))
	f, ok := m.overlay.(*editForm)
	if !ok {
		t.Fatalf("m opened %T", m.overlay)
	}
	if v := ansi.Strip(m.View()); strings.Contains(v, "no longer says") {
		t.Fatalf("the combined record is flagged as dropping a source:\n%s", v)
	}
	sendKey(t, m, uitest.Key("ctrl+u")) // the combined lemma is one line, the cursor at its end
	v := ansi.Strip(m.View())
	for _, id := range []string{a, b} {
		if !strings.Contains(v, "! the merged lemma no longer says all of "+id+"'s lemma") {
			t.Errorf("an emptied lemma is not flagged as dropping %s's:\n%s", id, v)
		}
	}
	sendKey(t, m, uitest.Key("ctrl+s"))
	if m.overlay != f || !strings.Contains(f.Err(), "the lemma is empty") {
		t.Fatalf("an empty lemma was saved: overlay %T, error %q", m.overlay, f.Err())
	}
	for _, id := range []string{a, b} {
		if r := record(t, deps.Service, id); r.Version != 1 || r.Provenance.MergedInto != "" {
			t.Errorf("%s after the refused merge: v%d into %q", id, r.Version, r.Provenance.MergedInto)
		}
	}
}
