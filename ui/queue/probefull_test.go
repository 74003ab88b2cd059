package queue

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/probe"
)

// TestProbeOutputEveryRow: a probe of 20 rows shows 8 in the pane and
// says so; enter on the focused probes pane shows all 20, each cell whole
// (a 300-character one too, and a text's line breaks kept), and esc
// closes it. A text output wider than the pane scrolls sideways with →.
func TestProbeOutputEveryRow(t *testing.T) {
	m := loaded(t)
	long := strings.Repeat("word ", 59) + "END"
	rows := make([][]any, 20)
	for i := range rows {
		rows[i] = []any{int64(i + 1), fmt.Sprintf("line one %d\nline two %d", i+1, i+1)}
	}
	rows[1] = []any{int64(2), long}
	m.cur.Runs = m.cur.Runs[:1]
	m.cur.Runs[0].Result = probe.Result{Kind: "sql", Env: "shop", Input: "SELECT n, t FROM x",
		Columns: []string{"n", "t"}, Rows: rows}
	m.panes.SetFocus(paneProbes)
	m.render()
	m.enableKeys()
	pane := ansi.Strip(strings.Join(m.panes.Body(paneProbes).Lines(), "\n"))
	if !strings.Contains(pane, "… 20 rows in all (enter shows them)") || strings.Contains(pane, "END") {
		t.Fatalf("the pane does not cut to 8 rows and say so:\n%s", pane)
	}
	if !m.Keys.Probes.Full.Enabled() || !m.Keys.Probes.Sideways.Enabled() {
		t.Fatalf("enter %v, ←/→ %v on the focused probes pane with a wide table", m.Keys.Probes.Full.Enabled(), m.Keys.Probes.Sideways.Enabled())
	}
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	o, ok := m.overlay.(*probeOutput)
	if !ok {
		t.Fatalf("enter opened %T, want the full text", m.overlay)
	}
	_ = m.View()
	full := ansi.Strip(strings.Join(o.body.Lines(), "\n"))
	for _, want := range []string{"20 rows · columns: n, t", "row 1 ", "t: line one 1", "line two 1", "row 20"} {
		if !strings.Contains(full, want) {
			t.Errorf("the full text lacks %q:\n%s", want, full)
		}
	}
	// The long cell, wrapped, reads whole when its lines are joined.
	_, tail, _ := strings.Cut(full, "row 2 ")
	tail = tail[strings.Index(tail, "t: ")+3 : strings.Index(tail, "row 3")]
	if got := strings.Join(strings.Fields(tail), " "); got != long {
		t.Errorf("the long cell reads %q", got)
	}
	// The proposal leaving the queue under it (decided elsewhere) empties it.
	saved := m.queue
	m.queue = nil
	if v := ansi.Strip(m.View()); strings.Contains(v, "row 1") {
		t.Errorf("the full text still shows the rows of a proposal no longer shown:\n%s", v)
	}
	m.queue = saved
	m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	if m.overlay != nil {
		t.Fatal("esc did not close the full text")
	}

	// A text output: its lines scroll sideways.
	m.cur.Runs[0].Result = probe.Result{Kind: "files", Env: "docs", Input: "read a.txt", Text: "short\n" + long + "\n"}
	m.render()
	m.enableKeys()
	body := func() string { return ansi.Strip(strings.Join(m.panes.Body(paneProbes).Lines(), "\n")) }
	if b := body(); strings.Contains(b, "END") || !strings.Contains(b, "← → scroll sideways") {
		t.Fatalf("the text's long line is not cut with a hint:\n%s", b)
	}
	for range 20 {
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("l")})
	}
	if b := body(); !strings.Contains(b, "word END") {
		t.Errorf("→ did not scroll the text to its end:\n%s", b)
	}
	for range 20 {
		m.Update(tea.KeyMsg{Type: tea.KeyLeft})
	}
	if m.probeX != 0 || !strings.Contains(body(), "short") {
		t.Errorf("← did not scroll back to the start (x %d)", m.probeX)
	}
}
