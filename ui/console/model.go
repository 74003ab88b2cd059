// Package console is the probe console: a readline-style input that runs
// read-only probes (SQL on a SQLite file or a PostgreSQL database,
// list/read/grep/sheet under a folder of files and documents, a call of
// an MCP server's read-only tool) against the bank's environments, shows the result as a table fitted to
// its data or as text, with its duration and any truncation or refusal,
// and attaches the last result as evidence to the proposal or record the
// operator last looked at (the latest common.Focus, which the review and
// bank screens send). Probes and store writes run in tea.Cmds.
package console

import (
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/ui/common"
)

// Keys are the keys this screen adds (declared with the others in
// common.KeyMap).
type Keys = common.ConsoleKeys

// DefaultKeys returns the screen's own keys.
func DefaultKeys() Keys { return common.DefaultKeyMap().Console }

// Model is the probe console.
type Model struct {
	common.Common
	deps common.Deps
	keys Keys

	envs    []probe.Env // from memreview.toml
	env     int         // the chosen one
	loaded  bool
	loadErr string

	input   textarea.Model // multi-line: alt+enter breaks the line, enter runs
	typing  bool           // the input has focus
	history []string       // inputs run (line breaks kept), oldest first
	histPos int            // index into history while browsing; len(history) = the draft
	draft   string

	runSeq  int
	running bool
	pdfWait bool          // the running probe may wait for the PDF engine's first preparation
	last    *probe.Result // the last result shown

	body  []string // the last result rendered at width bodyW
	bodyW int
	off   int  // first body line on screen
	full  bool // ctrl+o: rows in full, a "column: value" line per cell, not the table

	target    common.Focus // where A attaches: the latest focus; zero when unknown
	targetWhy string
	busy      string
}

// New returns the console; Init reads the environments.
func New(c common.Common, deps common.Deps) common.Screen {
	m := &Model{Common: c, deps: deps, keys: DefaultKeys(), typing: true}
	m.input = newInput()
	m.input.Focus()
	m.enableKeys()
	return m
}

// MaxInput is the most characters the input holds; a longer paste is cut,
// with a notice. MaxInputLines is the most lines it shows at once (it
// grows to them, then scrolls).
const (
	MaxInput      = 8000
	MaxInputLines = 5
)

// newInput is the console's input: a textarea without line numbers or a
// highlighted cursor line, "› " before its first line, enter left to the
// console (run) and alt+enter inserting a line break.
func newInput() textarea.Model {
	in := textarea.New()
	in.ShowLineNumbers = false
	in.Placeholder = "a probe: " + probe.Usage(probe.KindSQL)
	in.SetPromptFunc(2, func(line int) string {
		if line == 0 {
			return "› "
		}
		return "  "
	})
	in.CharLimit = MaxInput
	in.MaxHeight = 0 // no cap on lines (it caps InsertNewline too); fitInput caps the height
	in.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("alt+enter"))
	in.FocusedStyle.CursorLine = lipgloss.NewStyle()
	in.BlurredStyle.CursorLine = lipgloss.NewStyle()
	in.Cursor.SetMode(cursor.CursorStatic)
	in.SetHeight(1)
	return in
}

// Init reads the environments and the head of the queue (the default
// attach target).
func (m *Model) Init() tea.Cmd { return m.load() }

// Capturing reports whether the input takes typed text.
//
// An empty input line lets the global keys through (1–4 switch screens, ?
// help, q quit): no SQL statement or files operation starts with them, so
// the console never traps the operator, and typing still goes to the input.
func (m *Model) Capturing() bool { return m.typing && m.input.Value() != "" }

// SetSize re-renders the result at the new width.
func (m *Model) SetSize(w, h int) {
	m.Width, m.Height = w, h
	m.input.SetWidth(max(w-1, 4))
	m.wrapPlaceholder()
	m.fitInput()
	m.renderBody()
}

func (m *Model) enableKeys() {
	canAttach := m.last != nil && m.target.ID != "" && m.busy == "" && m.deps.Service != nil
	m.keys.Attach.SetEnabled(canAttach && !m.typing)
	m.keys.AltAttch.SetEnabled(canAttach)
	m.keys.NextEnv.SetEnabled(len(m.envs) > 1)
	m.keys.Run.SetEnabled(m.typing && len(m.envs) > 0 && !m.running)
	m.keys.Clear.SetEnabled(m.typing)
	m.keys.NewLine.SetEnabled(m.typing)
	m.keys.History.SetEnabled(m.typing && len(m.history) > 0)
	m.keys.Blur.SetEnabled(m.typing)
	m.keys.Edit.SetEnabled(!m.typing)
}

// ShortHelp lists the keys that apply now.
func (m *Model) ShortHelp() []key.Binding {
	k, c := m.keys, m.Keys
	if m.typing {
		return []key.Binding{k.Run, k.NewLine, k.NextEnv, k.History, k.Clear, k.AltAttch, k.Full, k.Blur}
	}
	return []key.Binding{k.Edit, c.Up, c.Down, c.PageUp, c.PageDown, k.NextEnv, k.Attach, k.Full}
}

// FullHelp lists every key of the screen for the help overlay.
func (m *Model) FullHelp() [][]key.Binding {
	k, c := m.keys, m.Keys
	return [][]key.Binding{
		{k.Run, k.NewLine, k.NextEnv, k.History, k.Clear, k.AltAttch, k.Blur},
		{k.Edit, c.Up, c.Down, c.PageUp, c.PageDown, c.Top, c.Bottom, k.Attach, k.Full},
	}
}

// Title is the header: the chosen environment.
func (m *Model) Title() string {
	if e, ok := m.current(); ok {
		return "Probes · " + e.Name
	}
	return "Probes"
}

// choose makes environment i the chosen one; the input's placeholder is
// its kind's probe grammar.
func (m *Model) choose(i int) {
	m.env = i
	m.wrapPlaceholder()
}

// wrapPlaceholder sets the input's placeholder to the chosen kind's probe
// grammar, wrapped at spaces to the input's width (the textarea would
// also break "--page" at its dashes) and cut to maxPlaceholderLines.
func (m *Model) wrapPlaceholder() {
	e, ok := m.current()
	if !ok {
		return
	}
	w := max(m.input.Width(), 1)
	lines := strings.Split(ansi.Hardwrap(wrapAtSpaces(string(e.Kind)+": "+probe.Usage(e.Kind), w), w, false), "\n")
	if len(lines) > maxPlaceholderLines {
		lines = lines[:maxPlaceholderLines]
		lines[len(lines)-1] = ansi.Truncate(lines[len(lines)-1], w-1, "") + "…"
	}
	m.input.Placeholder = strings.Join(lines, "\n")
}

// placeholderLines is how many lines the placeholder takes.
func (m *Model) placeholderLines() int { return strings.Count(m.input.Placeholder, "\n") + 1 }

const maxPlaceholderLines = 3

// wrapAtSpaces breaks s into lines of at most w cells at its spaces (a
// longer word stays whole, for Hardwrap).
func wrapAtSpaces(s string, w int) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(s) {
		ww := ansi.StringWidth(word)
		switch {
		case i == 0:
		case n+1+ww > w:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += ww
	}
	return b.String()
}

// current is the chosen environment.
func (m *Model) current() (probe.Env, bool) {
	if m.env < 0 || m.env >= len(m.envs) {
		return probe.Env{}, false
	}
	return m.envs[m.env], true
}
