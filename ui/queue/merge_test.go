package queue

import (
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// The merge editor opens on the combined record with the long lemma
// wrapped under its label from its start to its end (also after a
// resize), and esc goes back to the picker with the same record chosen.
func TestMergeEditorView(t *testing.T) {
	t.Parallel()
	m := New(common.NewCommon(), uitest.OpenSample(t)).(*Model)
	m.SetSize(200, 50)
	settle(t, m, m.Init())
	send := func(msg tea.Msg) { settle(t, m, func() tea.Msg { return msg }) }
	send(common.ShowProposal{ID: sample.PropMerge})
	send(uitest.Key("m"))
	send(uitest.Key(" "))
	mp := m.overlay.(*mergePicker)
	if len(mp.chosen) != 1 {
		t.Fatalf("space chose %d records of %d suggested", len(mp.chosen), len(mp.found_))
	}
	chosen := mp.chosen[0]
	send(uitest.Key("enter"))
	f, ok := m.overlay.(*mergeForm)
	if !ok {
		t.Fatalf("enter in the picker opened %T, want the merge editor", m.overlay)
	}
	if !strings.Contains(f.Values()[0], chosen.Lemma) {
		t.Fatalf("the editor's lemma %q lacks %s's %q", f.Values()[0], chosen.ID, chosen.Lemma)
	}
	for _, w := range []int{200, 80, 120} {
		m.SetSize(w, 40)
		lines := strings.Split(ansi.Strip(m.View()), "\n")
		from := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "▸ lemma      Revenue per head") })
		to := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, " trigger ") })
		if from < 0 || to < from {
			t.Fatalf("at width %d the lemma field does not start with the lemma's start:\n%s", w, strings.Join(lines, "\n"))
		}
		var shown []string
		for _, l := range lines[from:to] {
			l = strings.Trim(l, "│ ")
			l = strings.TrimPrefix(l, "▸ lemma")
			shown = append(shown, strings.Fields(l)...)
		}
		if got, want := strings.Join(shown, " "), strings.Join(strings.Fields(f.Values()[0]), " "); !strings.HasPrefix(got, want) {
			t.Fatalf("at width %d the lemma field shows %q, not the whole lemma %q", w, got, want)
		}
	}
	if v := m.View(); strings.Contains(v, "no longer says") {
		t.Fatalf("the combined lemma is flagged as dropping a source:\n%s", v)
	}
	// The operator cuts the lemma to the candidate's: the editor says which
	// source's lemma is gone.
	send(tea.KeyMsg{Type: tea.KeyCtrlU})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "! the merged lemma no longer says all of "+chosen.ID+"'s lemma") {
		t.Fatalf("a lemma cut to nothing of %s is not flagged:\n%s", chosen.ID, v)
	}
	send(uitest.Key("esc"))
	if mp, ok := m.overlay.(*mergePicker); !ok || !mp.isChosen(chosen.ID) {
		t.Fatalf("esc in the editor left %T, want the picker with %s chosen", m.overlay, chosen.ID)
	}
}
