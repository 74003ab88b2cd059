// Package uitest holds what the screens' tests share: a copy of the sample
// world generated once per test process (SampleDir, OpenSample), a tiny
// root model that hosts screens the way ui.Model does (Root), teatest
// helpers that start a program, wait for text and quit (Start, WaitFor,
// Quit), and helpers for direct Update tests (Drive, Drain, Key, CheckFits).
//
// It is imported by _test.go files only; nothing in the program uses it.
package uitest

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/memreview/memreview/ui/common"
)

// WaitTimeout is how long WaitFor waits for the program to print.
const WaitTimeout = 15 * time.Second

// Main runs a package's tests and benchmarks rendering without colour on a
// dark background, so that screens draw the same in every terminal, then
// runs cleanups (for fixtures shared by the whole process) and exits:
//
//	func TestMain(m *testing.M) { uitest.Main(m) }
func Main(m *testing.M, cleanups ...func()) {
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	code := m.Run()
	removeTemplate()
	for _, c := range cleanups {
		c()
	}
	os.Exit(code)
}

// Root is a tiny stand-in for ui.Model: it hosts Screens, sizes them (less
// one footer line), shows the latest common.Status under the active one,
// and routes messages as ui.Model does: keys and mouse to the active
// screen; ShowRecord to Screens[0]; ShowTrajectory to Screens[1] when there
// is one (else it only says so in the footer); everything else, Focus
// included, to every screen.
type Root struct {
	Curator *common.Curator // advanced here and broadcast, as ui.Model does; may be nil
	Screens []common.Screen
	Active  int
	Status  string
}

// NewRoot returns a Root over screens, the first one active.
func NewRoot(screens ...common.Screen) *Root { return &Root{Screens: screens} }

// Init starts every screen.
func (r *Root) Init() tea.Cmd {
	var cmds []tea.Cmd
	for _, s := range r.Screens {
		cmds = append(cmds, s.Init())
	}
	return tea.Batch(cmds...)
}

func (r *Root) forward(i int, msg tea.Msg) tea.Cmd {
	s, cmd := r.Screens[i].Update(msg)
	r.Screens[i] = s
	return cmd
}

// Update routes msg; see Root.
func (r *Root) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if cmd, ch := r.Curator.Update(msg); ch != common.CuratorNone {
		msg = common.CuratorProgress{Change: ch}
		var cmds []tea.Cmd
		for i := range r.Screens {
			cmds = append(cmds, r.forward(i, msg))
		}
		return r, tea.Batch(append(cmds, cmd)...)
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		for _, s := range r.Screens {
			s.SetSize(msg.Width, msg.Height-1)
		}
		return r, nil
	case common.Delayed:
		return r, msg.Timer()
	case common.Status:
		r.Status = msg.Text
		return r, nil
	case common.ShowRecord:
		r.Active = 0
		return r, r.forward(0, msg)
	case common.ShowTrajectory:
		if len(r.Screens) > 1 {
			r.Active = 1
			return r, r.forward(1, msg)
		}
		r.Status = "open " + msg.ID
		return r, nil
	case tea.KeyMsg, tea.MouseMsg:
		return r, r.forward(r.Active, msg)
	}
	var cmds []tea.Cmd
	for i := range r.Screens {
		cmds = append(cmds, r.forward(i, msg))
	}
	return r, tea.Batch(cmds...)
}

// View is the active screen over the footer status.
func (r *Root) View() string { return r.Screens[r.Active].View() + "\n" + r.Status }

// Start runs model in a teatest program of w×h cells and quits it when the
// test ends.
func Start(t testing.TB, model tea.Model, w, h int) *teatest.TestModel {
	t.Helper()
	tm := teatest.NewTestModel(t, model, teatest.WithInitialTermSize(w, h))
	t.Cleanup(func() { Quit(t, tm) })
	return tm
}

// WaitFor waits until the program has printed every one of texts since the
// last wait, and fails the test with the tail of what it printed if it has
// not within WaitTimeout.
func WaitFor(t testing.TB, tm *teatest.TestModel, texts ...string) {
	t.Helper()
	var seen []byte
	buf := make([]byte, 64<<10)
	for deadline := time.Now().Add(WaitTimeout); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		n, _ := tm.Output().Read(buf)
		seen = append(seen, buf[:n]...)
		all := true
		for _, s := range texts {
			all = all && bytes.Contains(seen, []byte(s))
		}
		if all {
			return
		}
	}
	tail := ansi.Strip(string(seen))
	if len(tail) > 4000 {
		tail = tail[len(tail)-4000:]
	}
	t.Fatalf("the program did not print %q within %s; it printed:\n%s", texts, WaitTimeout, tail)
}

// Quit stops the program and waits for it to finish.
func Quit(t testing.TB, tm *teatest.TestModel) {
	t.Helper()
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}

// CheckFits fails the test when view is taller than h lines or has a line
// wider than w cells; what names the view in the message.
func CheckFits(t testing.TB, what, view string, w, h int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) > h {
		t.Errorf("%s at %dx%d: %d lines", what, w, h, len(lines))
	}
	for i, l := range lines {
		if lw := lipgloss.Width(l); lw > w {
			t.Errorf("%s at %dx%d: line %d is %d wide: %q", what, w, h, i, lw, l)
		}
	}
}

// namedKeys are the keys Key knows by name.
var namedKeys = map[string]tea.KeyMsg{
	"enter":     {Type: tea.KeyEnter},
	"esc":       {Type: tea.KeyEsc},
	"tab":       {Type: tea.KeyTab},
	"shift+tab": {Type: tea.KeyShiftTab},
	"backspace": {Type: tea.KeyBackspace},
	"up":        {Type: tea.KeyUp},
	"down":      {Type: tea.KeyDown},
	"pgup":      {Type: tea.KeyPgUp},
	"pgdown":    {Type: tea.KeyPgDown},
	"space":     {Type: tea.KeySpace, Runes: []rune{' '}},
	" ":         {Type: tea.KeySpace, Runes: []rune{' '}},
}

// Key returns the key message of s: a key named in namedKeys ("enter",
// "esc", "tab", "shift+tab", "backspace", "up", "down", "pgup", "pgdown",
// "space" or " "), else s typed as runes.
func Key(s string) tea.KeyMsg {
	if k, ok := namedKeys[s]; ok {
		return k
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}
