package console

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// console drives the console directly: Update, then the Cmd it returns,
// then Update with its message, as the program would.
type console struct {
	t *testing.T
	m *Model
}

func newConsole(t *testing.T, deps common.Deps) *console {
	c := &console{t: t, m: New(common.NewCommon(), deps).(*Model)}
	c.m.SetSize(120, 30)
	c.feed(c.m.Init())
	return c
}

func (c *console) feed(cmd tea.Cmd) {
	for cmd != nil {
		msg := cmd()
		if _, ok := msg.(common.Status); ok {
			return
		}
		_, cmd = c.m.Update(msg)
	}
}

func (c *console) send(msg tea.Msg) {
	_, cmd := c.m.Update(msg)
	c.feed(cmd)
}

// run types input over whatever is in the line and runs it.
func (c *console) run(input string) string {
	c.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	c.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(input)})
	if got := c.m.input.Value(); got != input {
		c.t.Fatalf("the input holds %q, want %q", got, input)
	}
	c.send(tea.KeyMsg{Type: tea.KeyEnter})
	return ansi.Strip(c.m.View())
}

func fileSHA(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// TestHostileInputRefused sends the probe package's hostile inputs through
// the console: each refusal is on screen, and the environment's bytes are
// unchanged afterwards.
func TestHostileInputRefused(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	shop, err := deps.Service.ResolveEnv("shop")
	if err != nil {
		t.Fatal(err)
	}
	before := fileSHA(t, shop.Path)
	c := newConsole(t, deps)
	if e, _ := c.m.current(); e.Kind != probe.KindSQL {
		t.Fatalf("the console opened on %s (%s), want the first sql env", e.Name, e.Kind)
	}
	hostile := []string{
		"DELETE FROM items_g1",
		"DROP TABLE items_g1",
		"UPDATE items_g1 SET price_cents = 0",
		"INSERT INTO items_g1 (item_id) VALUES (999999)",
		"CREATE TABLE x (a)",
		"ALTER TABLE items_g1 RENAME TO gone",
		"ATTACH '" + shop.Path + ".new' AS n",
		"VACUUM",
		"PRAGMA query_only = 0",
		"PRAGMA journal_mode = delete",
		"SELECT 1; DELETE FROM items_g1",
		"BEGIN IMMEDIATE",
	}
	for _, q := range hostile {
		view := c.run(q)
		res := c.m.last
		if res == nil || res.Input != q || !strings.HasPrefix(res.Error, "refused") {
			t.Errorf("%s: not refused: %+v", q, res)
			continue
		}
		if !strings.Contains(view, "✘ refused") || !strings.Contains(view, "Nothing in the environment was changed.") {
			t.Errorf("%s: the refusal is not on screen:\n%s", q, view)
		}
		first := strings.Split(ansi.Wrap(res.Error, 120, " -"), "\n")[0]
		if !strings.Contains(view, strings.TrimSpace(first)) {
			t.Errorf("%s: the screen does not show the reason %q:\n%s", q, first, view)
		}
	}
	if after := fileSHA(t, shop.Path); after != before {
		t.Fatal("the shop database changed under hostile input")
	}
	if _, err := os.Stat(shop.Path + ".new"); err == nil {
		t.Error("ATTACH created a file")
	}

	// The files environment refuses escapes the same way.
	c.send(tea.KeyMsg{Type: tea.KeyTab})
	if e, _ := c.m.current(); e.Kind != probe.KindFiles {
		t.Fatalf("tab chose %s, want the files env", e.Name)
	}
	for _, q := range []string{"read ../../bank.db", "ls /etc", "read ../memreview.toml"} {
		view := c.run(q)
		if c.m.last == nil || !strings.HasPrefix(c.m.last.Error, "refused") || !strings.Contains(view, "✘ refused") {
			t.Errorf("%s: not refused on screen: %+v\n%s", q, c.m.last, view)
		}
	}
}

// TestResultTableAndKeys checks the readline keys, history, the fitted
// table and scrolling a long result.
func TestResultTableAndKeys(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	c := newConsole(t, deps)
	view := c.run("SELECT item_id, brand FROM items_g1 ORDER BY item_id")
	res := c.m.last
	if res == nil || !res.OK() || len(res.Rows) < 30 {
		t.Fatalf("the long query: %+v", res)
	}
	lines := strings.Split(view, "\n")
	if len(lines) > 30 {
		t.Errorf("View is %d lines for a 30-line screen", len(lines))
	}
	if !strings.Contains(view, "item_id │ brand") || !strings.Contains(view, fmt.Sprintf("✔ %d rows", len(res.Rows))) {
		t.Errorf("no fitted table header:\n%s", view)
	}
	c.run("SELECT 1 AS one")
	c.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	if c.m.input.Value() != "" {
		t.Errorf("ctrl+u left %q", c.m.input.Value())
	}
	c.send(tea.KeyMsg{Type: tea.KeyUp})
	c.send(tea.KeyMsg{Type: tea.KeyUp})
	if got := c.m.input.Value(); !strings.HasPrefix(got, "SELECT item_id") {
		t.Errorf("up twice recalls %q, want the first query", got)
	}
	c.send(tea.KeyMsg{Type: tea.KeyDown})
	c.send(tea.KeyMsg{Type: tea.KeyDown})
	if got := c.m.input.Value(); got != "" {
		t.Errorf("down past the newest shows %q, want the empty draft", got)
	}
	c.send(tea.KeyMsg{Type: tea.KeyUp})
	c.send(tea.KeyMsg{Type: tea.KeyUp})
	c.send(tea.KeyMsg{Type: tea.KeyEnter})
	c.send(tea.KeyMsg{Type: tea.KeyEsc})
	if c.m.Capturing() {
		t.Fatal("esc did not leave the input")
	}
	top := ansi.Strip(c.m.View())
	c.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("j")})
	if c.m.off != 1 || ansi.Strip(c.m.View()) == top {
		t.Errorf("j did not scroll the result (offset %d)", c.m.off)
	}
	c.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("G")})
	if v := ansi.Strip(c.m.View()); !strings.Contains(v, fmt.Sprintf("(%d rows)", len(res.Rows))) {
		t.Errorf("G did not scroll to the end:\n%s", v)
	}
}

// TestEmptyInputLetsGlobalKeysThrough: the console opens with the input
// focused; while the line is empty the root's keys (1–4, ?, q) still work,
// and once something is typed every key goes to the input.
func TestEmptyInputLetsGlobalKeysThrough(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	c := newConsole(t, deps)
	if !c.m.typing || c.m.Capturing() {
		t.Fatalf("fresh console: typing=%v capturing=%v, want the input focused but not capturing", c.m.typing, c.m.Capturing())
	}
	c.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("S")})
	if !c.m.Capturing() || c.m.input.Value() != "S" {
		t.Fatalf("after typing S: capturing=%v value=%q", c.m.Capturing(), c.m.input.Value())
	}
	c.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	if c.m.Capturing() {
		t.Fatal("an emptied line still captures the global keys")
	}
}

// TestAttachAnnouncesEvidence: a committed attach tells the other screens,
// so the review screen lists the run under the proposal it shows.
func TestAttachAnnouncesEvidence(t *testing.T) {
	t.Parallel()
	m := New(common.NewCommon(), common.Deps{}).(*Model)
	target := common.Focus{Kind: "proposal", ID: "prop_0002"}
	_, cmd := m.Update(attached{run: "run_0099", target: target})
	var got []tea.Msg
	for pending := []tea.Cmd{cmd}; len(pending) > 0; pending = pending[1:] {
		if pending[0] == nil {
			continue
		}
		msg := pending[0]()
		if b, ok := msg.(tea.BatchMsg); ok {
			pending = append(pending, b...)
		} else {
			got = append(got, msg)
		}
	}
	want := common.EvidenceAttached{Target: target, Run: "run_0099"}
	if !slices.Contains(got, tea.Msg(want)) {
		t.Fatalf("attach returned %v, want %v among them", got, want)
	}
}

// TestNoAttachWhileRunning: while a probe runs, the result on screen is
// the previous input's, so alt+a refuses rather than attach it.
func TestNoAttachWhileRunning(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	c := newConsole(t, deps)
	c.run("SELECT 1")
	c.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	c.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("SELECT 2")})
	if _, cmd := c.m.Update(tea.KeyMsg{Type: tea.KeyEnter}); cmd == nil || !c.m.running {
		t.Fatal("enter did not start the probe")
	}
	target := c.m.target
	before, _ := deps.Service.ProbeRunsFor(target.Kind, target.ID)
	_, cmd := c.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a"), Alt: true})
	if cmd == nil {
		t.Fatal("alt+a while running said nothing")
	}
	if st, ok := cmd().(common.Status); !ok || !st.Err {
		t.Fatalf("alt+a while running: %#v, want an error in the footer", st)
	}
	after, _ := deps.Service.ProbeRunsFor(target.Kind, target.ID)
	if len(after) != len(before) {
		t.Fatalf("alt+a while running attached a run to %s %s", target.Kind, target.ID)
	}
}

// TestEscapesInOutputAreShownNotObeyed reads a file whose text carries a
// colour, a window-title sequence and a tab, and selects the same as a SQL
// value: the screen shows them as visible escapes, never sends them to the
// terminal, and no line is wider than the screen.
func TestEscapesInOutputAreShownNotObeyed(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	docs, err := deps.Service.ResolveEnv("docs")
	if err != nil {
		t.Fatal(err)
	}
	const evil = "red \x1b[41mALERT\x1b[0m\tcell\n\x1b]0;pwned\x07title\n"
	if err := os.WriteFile(filepath.Join(docs.Path, "evil.txt"), []byte(evil), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newConsole(t, deps)
	for _, in := range []struct{ env, input string }{
		{"docs", "read evil.txt"},
		{"shop", "SELECT char(27) || ']0;pwned' || char(7) || 'title' || char(9) || 'cell' AS x"},
	} {
		for e, _ := c.m.current(); e.Name != in.env; e, _ = c.m.current() {
			c.m.nextEnv()
		}
		c.run(in.input)
		v := c.m.View()
		if strings.Contains(v, "\x1b]") || strings.Contains(v, "\x07") || strings.Contains(v, "\t") {
			t.Errorf("%s: the screen passes the output's control characters on:\n%q", in.input, v)
		}
		if !strings.Contains(v, `\x1b]0;pwned\x07title`) {
			t.Errorf("%s: the escape is not shown:\n%s", in.input, v)
		}
		uitest.CheckFits(t, in.input, v, 120, 30)
	}
}

// TestNoKeystrokeLost: after esc (scrolling the result), a printable key
// that scrolls nothing returns to the input and is typed there.
func TestNoKeystrokeLost(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	m := New(common.NewCommon(), deps).(*Model)
	m.SetSize(120, 30)
	uitest.Drain(t, m, m.Init())
	for _, k := range []string{"S", "E", "L"} {
		uitest.Drain(t, m, func() tea.Msg { return uitest.Key(k) })
	}
	uitest.Drain(t, m, func() tea.Msg { return uitest.Key("esc") })
	if m.typing {
		t.Fatal("esc did not leave the input")
	}
	for _, k := range []string{"E", "C", "T"} {
		uitest.Drain(t, m, func() tea.Msg { return uitest.Key(k) })
	}
	if got := m.input.Value(); got != "SELECT" || !m.typing {
		t.Errorf("after esc the keys went astray: input %q, typing %v", got, m.typing)
	}
}

// TestMultiLineQuery: alt+enter breaks the line, enter runs the whole
// input; the probe run is exactly what was typed, the input grows to show
// both lines, and the history recalls the query whole.
func TestMultiLineQuery(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	c := newConsole(t, deps)
	const want = "SELECT 1\n, 2"
	c.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("SELECT 1")})
	c.send(tea.KeyMsg{Type: tea.KeyEnter, Alt: true})
	c.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(", 2")})
	if got := c.m.input.Value(); got != want {
		t.Fatalf("the input holds %q, want %q", got, want)
	}
	if c.m.last != nil || c.m.running {
		t.Fatal("alt+enter ran the probe")
	}
	view := trimLines(c.m.View())
	if !strings.Contains(view, "› SELECT 1\n  , 2\n") {
		t.Fatalf("the input does not show both lines:\n%s", view)
	}
	c.send(tea.KeyMsg{Type: tea.KeyEnter})
	res := c.m.last
	if res == nil || res.Input != want || !res.OK() || len(res.Columns) != 2 || fmt.Sprint(res.Rows) != "[[1 2]]" {
		t.Fatalf("the run: %+v, want %q with one row of two columns", res, want)
	}
	if view := ansi.Strip(c.m.View()); !strings.Contains(view, "✔ 1 row") {
		t.Errorf("the result is not on screen:\n%s", view)
	}

	// ↑ on the first line recalls the last query whole; ↑ inside a
	// multi-line input moves between its lines, not through the history.
	c.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	c.send(tea.KeyMsg{Type: tea.KeyUp})
	if got := c.m.input.Value(); got != want {
		t.Fatalf("↑ recalls %q, want %q", got, want)
	}
	c.send(tea.KeyMsg{Type: tea.KeyUp}) // to the first line of the entry
	if got := c.m.input.Value(); got != want || c.m.input.Line() != 0 {
		t.Fatalf("↑ on the second line: input %q on line %d, want the same entry on line 0", got, c.m.input.Line())
	}
	c.send(tea.KeyMsg{Type: tea.KeyEnter})
	if c.m.last == nil || c.m.last.Input != want || len(c.m.history) != 1 {
		t.Fatalf("rerun from history: %+v, history %q", c.m.last, c.m.history)
	}
}

// TestInputGrowsToFiveLines: the input takes as many screen lines as its
// text up to MaxInputLines, the result below it moves down, and the view
// still fits the screen.
func TestInputGrowsToFiveLines(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	c := newConsole(t, deps)
	for i := range 7 {
		if i > 0 {
			c.send(tea.KeyMsg{Type: tea.KeyEnter, Alt: true})
		}
		c.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(fmt.Sprintf("-- line %d", i+1))})
		if got, want := c.m.input.Height(), min(i+1, MaxInputLines); got != want {
			t.Fatalf("after %d lines the input is %d high, want %d", i+1, got, want)
		}
	}
	view := trimLines(c.m.View())
	if !strings.Contains(view, "  -- line 3\n  -- line 4\n  -- line 5\n  -- line 6\n  -- line 7\n") || strings.Contains(view, "-- line 2") {
		t.Errorf("a 7-line input does not scroll to its last lines:\n%s", view)
	}
	uitest.CheckFits(t, "7-line input", c.m.View(), 120, 30)
	c.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	if h := c.m.input.Height(); h != 1 {
		t.Errorf("ctrl+u left the input %d high, want 1", h)
	}
}

// TestPasteKeepsLineBreaks: a paste keeps its line breaks (CRLF as one);
// one longer than MaxInput is cut with a notice.
func TestPasteKeepsLineBreaks(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	c := newConsole(t, deps)
	c.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("SELECT 1\r\n, 3"), Paste: true})
	if got := c.m.input.Value(); got != "SELECT 1\n, 3" {
		t.Fatalf("the paste became %q", got)
	}
	c.send(tea.KeyMsg{Type: tea.KeyEnter})
	if c.m.last == nil || c.m.last.Input != "SELECT 1\n, 3" || !c.m.last.OK() {
		t.Fatalf("the pasted query ran as %+v", c.m.last)
	}

	c.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	big := strings.Repeat("x\n", MaxInput) // 2×MaxInput runes
	_, cmd := c.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(big), Paste: true})
	if got := len([]rune(c.m.input.Value())); got != MaxInput {
		t.Errorf("a %d-rune paste left %d runes, want %d", len(big), got, MaxInput)
	}
	found := false
	for pending := []tea.Cmd{cmd}; len(pending) > 0; pending = pending[1:] {
		if pending[0] == nil {
			continue
		}
		switch msg := pending[0]().(type) {
		case tea.BatchMsg:
			pending = append(pending, msg...)
		case common.Status:
			found = found || strings.Contains(msg.Text, "pasted text cut") && strings.Contains(msg.Text, fmt.Sprint(MaxInput)+" left out")
		}
	}
	if !found {
		t.Error("the cut paste gave no notice")
	}
	uitest.CheckFits(t, "big paste", c.m.View(), 120, 30)
}

// trimLines is the view without styles or trailing blanks on its lines.
func trimLines(view string) string {
	lines := strings.Split(ansi.Strip(view), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// TestTargetsFirstInQueue: a console that no screen has told what the
// operator looks at attaches to the first proposal in the queue, and says
// why.
func TestTargetsFirstInQueue(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	queue, err := deps.Service.Queue()
	if err != nil || len(queue) == 0 {
		t.Fatalf("the sample queue: %d proposals, %v", len(queue), err)
	}
	c := newConsole(t, deps)
	if v := ansi.Strip(c.m.View()); !strings.Contains(v, "[shop sql]") || !strings.Contains(v, "attach → proposal "+queue[0].ID+" (first in the queue)") {
		t.Fatalf("the console does not target the first proposal:\n%s", v)
	}
}
