package bank

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// TestLemmaTakesTheWidth draws the sample bank at 120 and 200 columns: the
// row of each record with a lemma longer than its pane shows the lemma up
// to the pane's edge, and the list pane takes most of a wide screen (the
// lemmas were cut to ~18 characters at 120 columns).
func TestLemmaTakesTheWidth(t *testing.T) {
	t.Parallel()
	for _, w := range []int{120, 200} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			deps := uitest.OpenSample(t)
			m := New(common.NewCommon(), deps).(*Model)
			m.SetSize(w, 40)
			uitest.Drain(t, m, m.Init())
			lw, _ := m.paneWidths()
			inner := lw - m.Styles.Pane.GetHorizontalFrameSize()
			if lw < w/2 {
				t.Errorf("the list pane is %d of %d columns; want the larger part", lw, w)
			}
			lines := strings.Split(ansi.Strip(m.View()), "\n")
			checked := 0
			for _, id := range m.visibleIDs() {
				r := m.recs[id]
				if r == nil {
					t.Fatalf("%s is on screen but not loaded", id)
				}
				lemma := common.PrintableLine(r.Lemma)
				// A row inside the pane's border and padding: "│ " + inner + " │".
				row := ""
				for _, l := range lines {
					if rs := []rune(l); len(rs) >= 2+inner {
						if in := string(rs[2 : 2+inner]); strings.Contains(in, " "+id+" ") {
							row = in
							break
						}
					}
				}
				at := strings.Index(row, lemma[:10])
				if at < 0 {
					t.Fatalf("no row of %s shows its lemma %q", id, lemma)
				}
				lead := ansi.StringWidth(row[:at])
				room := inner - lead // the cells the lemma may take
				if ansi.StringWidth(lemma) <= room {
					continue // fits whole
				}
				checked++
				shown := strings.TrimRight(strings.TrimSuffix(row[at:], "…"), " ")
				if !strings.HasPrefix(lemma, shown) || ansi.StringWidth(shown) < room-2 {
					t.Errorf("%s: the lemma shows %d of the %d cells left for it: %q", id, ansi.StringWidth(shown), room, shown)
				}
				if room < w/4 {
					t.Errorf("%s: %d cells left for the lemma at %d columns; the fixed columns take too much", id, room, w)
				}
			}
			if checked == 0 {
				t.Fatalf("no lemma on screen at %d columns is longer than its column; the test checks nothing", w)
			}
		})
	}
}
