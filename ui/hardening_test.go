package ui

import (
	"bytes"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/sample"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/form"
	"github.com/memreview/memreview/ui/uitest"
	"github.com/memreview/memreview/ui/widget"
)

// panicScreen is a screen whose x key returns a Cmd that panics, nested in
// a batch as the program's Cmds often are.
type panicScreen struct{ common.Common }

func (p *panicScreen) Init() tea.Cmd            { return nil }
func (p *panicScreen) SetSize(w, h int)         { p.Width, p.Height = w, h }
func (p *panicScreen) ShortHelp() []key.Binding { return nil }
func (p *panicScreen) Title() string            { return "Panic" }
func (p *panicScreen) View() string             { return "panic screen" }
func (p *panicScreen) Update(msg tea.Msg) (common.Screen, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok && k.String() == "x" {
		return p, tea.Batch(nil, func() tea.Msg { panic("boom in a background Cmd") })
	}
	return p, nil
}

// TestCmdPanicIsLoggedNotFatal: a panic inside a background Cmd (which
// Bubble Tea does not recover) is logged with its stack, shown in the
// footer, and the program runs on and quits normally.
func TestCmdPanicIsLoggedNotFatal(t *testing.T) {
	saved := Screens
	id := common.ScreenID(len(Screens) + 1) // the number key after the registered screens
	Screens = append(Screens[:len(Screens):len(Screens)], ScreenDef{ID: id, Name: "Panic",
		New: func(c common.Common, _ common.Deps) common.Screen { return &panicScreen{Common: c} }})
	t.Cleanup(func() { Screens = saved })

	w := newWorld(t)
	var logged syncBuffer
	w.deps.Log = log.New(&logged, "", 0)
	s := start(t, w.deps, 120, 40)
	s.waitFor("Review 1/15")
	s.typ(strconv.Itoa(int(id)))
	s.waitFor("panic screen")
	s.typ("x")
	s.waitFor("internal error in a background task")
	s.typ("1")
	s.waitFor("Review 1/15") // still answering keys
	s.quit()
	if l := logged.String(); !strings.Contains(l, "panic in a background task: boom in a background Cmd") || !strings.Contains(l, "goroutine") {
		t.Errorf("the log lacks the panic and its stack:\n%s", l)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestPasteIsCapped: 100 KB pasted (bracketed paste: one message) into the
// bank's search box and into the review screen's edit form is cut to what
// a one-line field takes, with a notice, instead of filling the field.
func TestPasteIsCapped(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	paste := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(strings.Repeat("stars 1 to 5\n", 8000)), Paste: true}
	m := started(t, w.deps, 120, 40).(*Model)
	m = drive(t, m, uitest.Key("2")).(*Model)
	m = drive(t, m, uitest.Key("/")).(*Model)
	m = drive(t, m, paste).(*Model)
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "pasted text cut: the search box took 2000 more characters") {
		t.Errorf("no notice of the cut paste:\n%s", v)
	}
	m = drive(t, m, uitest.Key("esc")).(*Model)
	m = drive(t, m, uitest.Key("1")).(*Model)
	m = drive(t, m, uitest.Key("e")).(*Model)
	m = drive(t, m, paste).(*Model)
	if v := ansi.Strip(m.View()); !strings.Contains(v, "pasted text cut: the ") || !strings.Contains(v, "field took") {
		t.Errorf("no notice of the cut paste in the form:\n%s", v)
	}
	if len(paste.Runes) <= widget.MaxQuery || len(paste.Runes) <= form.MaxField {
		t.Fatal("the paste is not longer than the caps")
	}
}

// TestHostileRunes: text holding a bidi override, a ZWJ emoji sequence and
// an escape reaches the frame neither raw nor wider than the terminal as a
// terminal measures it, rune by rune.
func TestHostileRunes(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	m := started(t, w.deps, 80, 24)
	hostile := "stars \u202eevil\u202c family 👨\u200d👩\u200d👧 heart ❤\ufe0f \x1b[2J\x1b]0;title\a end"
	m = drive(t, m, common.Status{Text: hostile, Err: true})
	v := m.View()
	for _, bad := range []string{"\u202e", "\u202c", "\u200d", "\ufe0f", "\x1b[2J", "\x1b]0;"} {
		if strings.Contains(v, bad) {
			t.Errorf("the frame holds %q raw", bad)
		}
	}
	for i, l := range strings.Split(ansi.Strip(v), "\n") {
		if cw := runewidth.StringWidth(l); cw > 80 {
			t.Errorf("line %d is %d cells wide to a terminal: %q", i, cw, l)
		}
	}
	if p := common.Printable(hostile); !strings.Contains(p, `\u202e`) || !strings.Contains(p, "👨👩👧") {
		t.Errorf("Printable(%q) = %q", hostile, p)
	}
}

// TestQuitCancelsCuratorCall: q during a curator run ends its HTTP call
// (the model server sees the request's context end) instead of leaving it
// running.
func TestQuitCancelsCuratorCall(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	arrived, cancelled, stop := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // the server notices a closed connection only once the body is read
		once.Do(func() { close(arrived) })
		select {
		case <-r.Context().Done():
			close(cancelled)
		case <-stop: // the test failed; let the server close
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) }) // runs before srv.Close
	w.deps.Curator = common.NewCurator(curator.Settings{BaseURL: srv.URL + "/v1", APIKey: "none", Model: "m",
		HTTPTimeout: time.Minute, RunTimeout: time.Minute})
	s := start(t, w.deps, 200, 60)
	s.waitFor("Review 1/15", "Candidate "+sample.ProposalIDs[0]) // c waits for the proposal to load
	s.typ("c")
	s.waitFor("to the model m at " + srv.URL + "/v1?")
	s.typ("y")
	select {
	case <-arrived:
	case <-time.After(10 * time.Second):
		t.Fatal("the curator never called the model")
	}
	s.quit()
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		r := w.deps.Curator.Run()
		t.Fatalf("quitting left the model call running (run %+v)", r)
	}
}
