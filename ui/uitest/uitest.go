// Package uitest holds what the screens' tests share: a copy of the sample
// world generated once per test process (SampleDir, OpenSample), teatest
// helpers that start a program (flows drive the real one, ui.New), wait
// for text and quit (Start, WaitFor, Quit), and helpers for direct Update
// tests (Drive, Drain, Key, CheckFits).
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

	"github.com/memreview/memreview/sample/testenv"
)

// WaitTimeout is how long WaitFor waits for the program to print: long,
// because it only matters when a test fails. Under CI every package's
// tests run beside each other on two cores, and a screen's background
// loads (the index, the embedder's related records, a probe) took past
// 15 s there while each passes in 1–3 s alone.
const WaitTimeout = 45 * time.Second

// Main runs a package's tests and benchmarks rendering without colour on a
// dark background, so that screens draw the same in every terminal, four
// at once unless -parallel is given (testenv.RunAtOnce), then
// runs cleanups (for fixtures shared by the whole process) and exits:
//
//	func TestMain(m *testing.M) { uitest.Main(m) }
func Main(m *testing.M, cleanups ...func()) {
	mainRan = true
	testenv.LessGC()
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	testenv.RunAtOnce(4)
	code := m.Run()
	removeTemplate()
	for _, c := range cleanups {
		c()
	}
	os.Exit(code)
}

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
	if ok, seen := await(tm, WaitTimeout, texts); !ok {
		tail := ansi.Strip(string(seen))
		if len(tail) > 4000 {
			tail = tail[len(tail)-4000:]
		}
		t.Fatalf("the program did not print %q within %s; it printed:\n%s", texts, WaitTimeout, tail)
	}
}

// Shows is WaitFor that waits at most within and reports whether the
// program printed every one of texts, for a test that tries again.
func Shows(tm *teatest.TestModel, within time.Duration, texts ...string) bool {
	ok, _ := await(tm, within, texts)
	return ok
}

func await(tm *teatest.TestModel, within time.Duration, texts []string) (bool, []byte) {
	var seen []byte
	buf := make([]byte, 64<<10)
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		n, _ := tm.Output().Read(buf)
		seen = append(seen, buf[:n]...)
		all := true
		for _, s := range texts {
			all = all && bytes.Contains(seen, []byte(s))
		}
		if all {
			return true, seen
		}
	}
	return false, seen
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
