package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// TestFooterKeepsHelp: at every boundary width, on every screen, the
// footer's key line ends with "? help" and "q quit" however many hints
// the screen has; the hints are what is cut.
func TestFooterKeepsHelp(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := started(t, w.deps, 200, 60)
	for _, d := range Screens {
		m = drive(t, m, uitest.Key(string(rune('0'+d.ID))))
		for _, width := range layoutWidths[1:] {
			m = drive(t, m, tea.WindowSizeMsg{Width: width, Height: 30})
			lines := strings.Split(ansi.Strip(m.View()), "\n")
			keys := lines[len(lines)-2]
			if !strings.Contains(keys, "? help") || !strings.Contains(keys, "q quit") {
				t.Errorf("%s at %d columns: the footer lost ? help: %q", d.Name, width, keys)
			}
		}
	}
}

// TestErrorOverlay: an error longer than the footer is cut there, and !
// shows it in full; esc closes the overlay.
func TestErrorOverlay(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := started(t, w.deps, 80, 24)
	long := "curator: the model server answered 500: " + strings.Repeat("upstream detail ", 12) + "END-OF-ERROR"
	m = drive(t, m, common.Status{Text: long, Err: true})
	v := ansi.Strip(m.View())
	if strings.Contains(v, "END-OF-ERROR") {
		t.Fatalf("the footer was expected to cut the error:\n%s", v)
	}
	if !strings.Contains(v, "! error") {
		t.Errorf("the footer does not offer !:\n%s", v)
	}
	m = drive(t, m, uitest.Key("!"))
	v = ansi.Strip(m.View())
	flat := strings.Join(strings.Fields(strings.ReplaceAll(v, "│", " ")), " ")
	if !strings.Contains(v, "Last error") || !strings.Contains(flat, "END-OF-ERROR") {
		t.Errorf("! does not show the whole error:\n%s", v)
	}
	m = drive(t, m, uitest.Key("esc"))
	if strings.Contains(ansi.Strip(m.View()), "Last error") {
		t.Error("esc did not close the error overlay")
	}
	// Read in full, the error leaves the footer of every screen (issue 23
	// item 12); ! still shows it.
	for _, k := range []string{"1", "2", "4"} {
		m = drive(t, m, uitest.Key(k))
		if v := ansi.Strip(m.View()); strings.Contains(v, "upstream detail") {
			t.Errorf("screen %s still shows the error read with !:\n%s", k, v)
		}
	}
	m = drive(t, m, uitest.Key("!"))
	if !strings.Contains(ansi.Strip(m.View()), "Last error") {
		t.Error("! no longer shows the error after it was read")
	}
}

// TestErrorLeavesOnNextKey: an error not read with ! leaves the footer
// on the next key, and a screen change (a navigation, no key) takes it
// off too; the footer still offers ! until it is read (issue 23 item 12).
func TestErrorLeavesOnNextKey(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := started(t, w.deps, 120, 40)
	m = drive(t, m, common.Status{Text: "probe: SHOP-DB-DOWN", Err: true})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "SHOP-DB-DOWN") {
		t.Fatalf("the footer does not show the error:\n%s", v)
	}
	m = drive(t, m, uitest.Key("j"))
	if v := ansi.Strip(m.View()); strings.Contains(v, "SHOP-DB-DOWN") || !strings.Contains(v, "! error") {
		t.Errorf("after a key the footer still shows the error, or lost !:\n%s", v)
	}
	m = drive(t, m, common.Status{Text: "probe: SHOP-DB-DOWN", Err: true})
	m = drive(t, m, common.ShowRecord{ID: "mem_0001"})
	if v := ansi.Strip(m.View()); strings.Contains(v, "SHOP-DB-DOWN") {
		t.Errorf("another screen still shows the error:\n%s", v)
	}
	m = drive(t, m, uitest.Key("!"))
	if v := ansi.Strip(m.View()); !strings.Contains(v, "Last error") || !strings.Contains(v, "SHOP-DB-DOWN") {
		t.Errorf("! does not show the error:\n%s", v)
	}
}

// TestSessionProgress: the title counts what this session decided against
// all it has had to review; a defer counts as decided but stays open, an
// undo takes the decision back.
func TestSessionProgress(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := started(t, w.deps, 200, 60)
	m = drive(t, m, uitest.Key("s")) // defer: still open
	if v := ansi.Strip(m.View()); !strings.Contains(v, "decided 1 of 15 this session") {
		t.Fatalf("after a defer:\n%s", v)
	}
	m = drive(t, m, uitest.Key("r")) // reject: leaves the queue
	if v := ansi.Strip(m.View()); !strings.Contains(v, "Review 1/14 · decided 2 of 15 this session") {
		t.Fatalf("after a reject:\n%s", v)
	}
	m = drive(t, m, uitest.Key("u"))
	if v := ansi.Strip(m.View()); !strings.Contains(v, "decided 1 of 15 this session") {
		t.Fatalf("after an undo:\n%s", v)
	}
}

// TestNoteReachesHistory: N, a note, then r: the decision's audit entry
// carries the note, and the export of decisions holds it.
func TestNoteReachesHistory(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := started(t, w.deps, 200, 60)
	pid := ansi.Strip(m.View())
	m = drive(t, m, uitest.Key("N"))
	for _, r := range "fdbk_g3 uses 1-10" {
		m = drive(t, m, uitest.Key(string(r)))
	}
	m = drive(t, m, uitest.Key("enter"))
	if v := ansi.Strip(m.View()); !strings.Contains(v, "note: fdbk_g3 uses 1-10") {
		t.Fatalf("the pending note is not shown:\n%s", v)
	}
	m = drive(t, m, uitest.Key("r"))
	ds, err := w.store.Decisions()
	if err != nil || len(ds) == 0 {
		t.Fatalf("decisions: %v, %v", ds, err)
	}
	d := ds[len(ds)-1]
	if d.Note != "fdbk_g3 uses 1-10" || d.Verb != "reject" || !strings.Contains(pid, d.Proposal) {
		t.Errorf("the decision is %+v", d)
	}
	if v := ansi.Strip(m.View()); strings.Contains(v, "note: fdbk_g3") {
		t.Error("the note stayed for the decision after")
	}
}

// TestZoom: z gives the focused pane the whole width of a wide screen
// (the other panes hide, the pane tabs show), and z again brings all back.
func TestZoom(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := started(t, w.deps, 200, 60)
	m = drive(t, m, uitest.Key("tab")) // the candidate pane
	m = drive(t, m, uitest.Key("z"))
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "z: all panes") || strings.Contains(v, "╮╭") {
		t.Fatalf("z did not zoom the candidate pane:\n%s", v)
	}
	if !strings.Contains(v, "Candidate prop_") {
		t.Errorf("the zoomed pane is not the focused one:\n%s", v)
	}
	m = drive(t, m, uitest.Key("z"))
	if v := ansi.Strip(m.View()); strings.Contains(v, "z: all panes") {
		t.Errorf("z again did not bring the panes back:\n%s", v)
	}
}

// TestHelpListsEveryKey: ? lists the screen's keys that do not apply now
// too: d (the first proposal, a create, has no targets) and [ (it is the
// first).
func TestHelpListsEveryKey(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := started(t, w.deps, 120, 40)
	m = drive(t, m, uitest.Key("?"))
	v := ansi.Strip(m.View())
	for _, want := range []string{"d delete", "[   prev", "N note", "z   zoom pane", "! error"} {
		if !strings.Contains(strings.Join(strings.Fields(v), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("? does not list %q:\n%s", want, v)
		}
	}
}
