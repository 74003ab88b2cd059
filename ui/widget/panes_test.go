package widget

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/ui/common"
)

func keyMsg(s string) tea.KeyMsg {
	switch s {
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// fill gives every pane n numbered lines at its width.
func fill(p *Panes, n int) {
	for i := range p.Len() {
		var lines []string
		for j := range n {
			lines = append(lines, fmt.Sprintf("pane %d line %d", i, j))
		}
		p.Body(i).SetContent(strings.Join(lines, "\n"))
	}
}

// checkFrame checks that View fills exactly w×h (the stacked tabs line
// may be shorter).
func checkFrame(t *testing.T, p *Panes, w, h int) string {
	t.Helper()
	v := p.View(func(i int) string { return fmt.Sprintf("title %d", i) })
	lines := strings.Split(v, "\n")
	if len(lines) != h {
		t.Errorf("%dx%d: View has %d lines", w, h, len(lines))
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w && !(i == 0 && !p.SideBySide() && got < w) { // the tabs line is not padded
			t.Errorf("%dx%d: line %d is %d wide: %q", w, h, i, got, ansi.Strip(l))
		}
	}
	return ansi.Strip(v)
}

// The manager lays three panes side by side from the wide width, else one
// at a time under tabs; tab moves the focus, z zooms the focused pane to
// the whole width (its body widens, so the owner must render again), the
// movement keys scroll only the focused pane, and the wheel focuses the
// pane under the pointer first.
func TestPanes(t *testing.T) {
	k := common.NewCommon().Keys
	p := NewPanes(common.DefaultStyles(), 120, "A", "B", "C")
	p.SetSize(150, 20)
	if !p.SideBySide() || fmt.Sprint(p.Widths()) != "[50 50 50]" {
		t.Fatalf("at 150: side by side %v, widths %v", p.SideBySide(), p.Widths())
	}
	fill(p, 40)
	v := checkFrame(t, p, 150, 20)
	for _, want := range []string{"title 0", "title 1", "title 2", "pane 2 line 0"} {
		if !strings.Contains(v, want) {
			t.Errorf("side by side lacks %q:\n%s", want, v)
		}
	}
	if h, _ := p.HandleKey(k, keyMsg("tab")); !h || p.Focus() != 1 {
		t.Fatalf("tab: handled %v, focus %d", h, p.Focus())
	}
	p.HandleKey(k, keyMsg("down"))
	if p.Body(1).YOffset() != 1 || p.Body(0).YOffset() != 0 {
		t.Errorf("down scrolled pane 0 to %d and pane 1 to %d; want only the focused", p.Body(0).YOffset(), p.Body(1).YOffset())
	}
	narrow := p.Body(1).Width()
	if h, resized := p.HandleKey(k, keyMsg("z")); !h || !resized || p.SideBySide() || p.Body(1).Width() <= narrow {
		t.Fatalf("z: handled %v resized %v, width %d (was %d)", h, resized, p.Body(1).Width(), narrow)
	}
	fill(p, 40)
	v = checkFrame(t, p, 150, 20)
	if !strings.Contains(v, "[B]") || !strings.Contains(v, "z: all panes") || strings.Contains(v, "title 0") {
		t.Errorf("zoomed on B:\n%s", v)
	}
	p.HandleKey(k, keyMsg("z"))

	p.HandleWheel(tea.MouseMsg{X: 10, Button: tea.MouseButtonWheelDown})
	if p.Focus() != 0 || p.Body(0).YOffset() != 3 {
		t.Errorf("wheel over pane 0: focus %d, offset %d", p.Focus(), p.Body(0).YOffset())
	}

	p.SetSize(80, 24) // stacked
	fill(p, 40)
	v = checkFrame(t, p, 80, 24)
	if p.SideBySide() || !strings.Contains(v, "[A]") || !strings.Contains(v, "tab: next pane") || strings.Contains(v, "title 1") {
		t.Errorf("stacked at 80:\n%s", v)
	}
	if p.Body(0).Width() != p.Body(2).Width() {
		t.Errorf("stacked, hidden pane 2 is %d wide, the shown one %d", p.Body(2).Width(), p.Body(0).Width())
	}
	p.SetSize(80, 3) // too short for a frame: the tabs line only
	if v := p.View(func(int) string { return "" }); strings.Count(v, "\n") != 1 || !strings.Contains(v, "[A]") {
		t.Errorf("at height 3: %q", v)
	}
}

// The detail pane cuts and pads its content to its width once, shows
// Height lines from its offset (blank past the end) and reports its scroll
// position only when the content overflows.
func TestDetail(t *testing.T) {
	d := NewDetail()
	d.SetSize(10, 3)
	d.SetContent("one\ntwo is a long line\nthree\nfour")
	for i, l := range d.Lines() {
		if ansi.StringWidth(l) != 10 {
			t.Errorf("line %d is %q", i, l)
		}
	}
	if got := d.Lines()[1]; got != "two is a …" {
		t.Errorf("a long line is cut to %q", got)
	}
	if d.ScrollPercent() != " · scrolled 0%" {
		t.Errorf("scroll percent %q at the top of 4 lines in 3", d.ScrollPercent())
	}
	d.Scroll(5)
	if d.YOffset() != 1 || strings.TrimSpace(d.Line(2)) != "four" || d.ScrollPercent() != " · scrolled 100%" {
		t.Errorf("scrolled to the end: offset %d, last line %q, %q", d.YOffset(), d.Line(2), d.ScrollPercent())
	}
	d.SetContent("x")
	if d.YOffset() != 0 || d.ScrollPercent() != "" || d.View() != "x         \n          \n          " {
		t.Errorf("short content: offset %d, %q, view %q", d.YOffset(), d.ScrollPercent(), d.View())
	}
}
