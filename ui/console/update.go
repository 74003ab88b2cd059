package console

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
)

// Background results.

type loaded struct {
	envs  []probe.Env
	queue string // the first open proposal, the default attach target
	err   error
}

type ran struct {
	seq int
	res probe.Result
}

type attached struct {
	run    string
	target common.Focus
	err    error
}

// load reads the environments and the head of the queue.
func (m *Model) load() tea.Cmd {
	store := m.deps.Service
	if store == nil {
		return nil
	}
	return func() tea.Msg {
		cfg, err := store.Config()
		if err != nil {
			return loaded{err: fmt.Errorf("read memreview.toml: %w", err)}
		}
		// The PDF engine's one-time compile runs in the background while
		// the operator is elsewhere, when a files environment holds PDFs.
		store.WarmPDF()
		l := loaded{envs: cfg.Envs}
		if q, err := store.Queue(); err == nil && len(q) > 0 {
			l.queue = q[0].ID
		}
		return l
	}
}

// Update handles keys and background results.
func (m *Model) Update(msg tea.Msg) (common.Screen, tea.Cmd) {
	cmd := m.update(msg)
	m.fitInput()
	m.enableKeys()
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if key.Matches(msg, m.keys.Full) { // not a key the input takes
			m.full = !m.full
			m.renderBody()
			return nil
		}
		if m.typing {
			return m.inputKey(msg)
		}
		return m.scrollKey(msg)
	case tea.MouseMsg:
		switch msg.Button {
		case tea.MouseButtonWheelUp:
			m.scroll(-3)
		case tea.MouseButtonWheelDown:
			m.scroll(3)
		}
	case loaded:
		m.loaded = true
		if msg.err != nil {
			m.loadErr = msg.err.Error()
			return common.NotifyErr(m.loadErr)
		}
		m.envs = msg.envs
		first := 0
		for i, e := range m.envs { // open on the first sql environment
			if e.Kind == probe.KindSQL {
				first = i
				break
			}
		}
		m.choose(first)
		if m.target.ID == "" && msg.queue != "" {
			m.target, m.targetWhy = common.Focus{Kind: "proposal", ID: msg.queue}, "first in the queue"
		}
	case ran:
		if msg.seq != m.runSeq {
			return nil
		}
		m.running = false
		res := msg.res
		m.last = &res
		m.off = 0
		m.renderBody()
	case attached:
		m.busy = ""
		if msg.err != nil {
			return common.NotifyErr("attach failed: " + msg.err.Error())
		}
		return tea.Batch(common.Notify(fmt.Sprintf("attached %s to %s %s", msg.run, msg.target.Kind, msg.target.ID)),
			func() tea.Msg { return common.EvidenceAttached{Target: msg.target, Run: msg.run} })
	case common.Focus: // the review screen's proposal or the bank's record
		m.target, m.targetWhy = msg, ""
	}
	return nil
}

// inputKey handles a key while the input has focus: readline keys, then
// the text itself.
func (m *Model) inputKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Run):
		return m.run()
	case key.Matches(msg, k.NextEnv):
		m.nextEnv()
		return nil
	case key.Matches(msg, k.Clear):
		m.input.SetValue("")
		m.histPos = len(m.history)
		return nil
	case key.Matches(msg, k.AltAttch):
		return m.attach()
	case key.Matches(msg, k.Blur):
		m.typing = false
		m.input.Blur()
		return nil
	case key.Matches(msg, k.History) && m.atEdge(msg.Type == tea.KeyUp):
		m.browse(msg.Type == tea.KeyUp)
		return nil
	case msg.Type == tea.KeyPgUp || msg.Type == tea.KeyPgDown:
		return m.scrollKey(msg)
	}
	msg, notice := clampPaste(msg, MaxInput-m.input.Length())
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return tea.Batch(cmd, notice)
}

// atEdge reports whether the cursor is on the input's first screen line
// (up) or its last (down): there ↑/↓ browse the history, elsewhere they
// move between the lines of a multi-line input.
func (m *Model) atEdge(up bool) bool {
	li := m.input.LineInfo()
	if up {
		return m.input.Line() == 0 && li.RowOffset == 0
	}
	return m.input.Line() == m.input.LineCount()-1 && li.RowOffset >= li.Height-1
}

// clampPaste makes pasted or typed runes printable as the forms do (an
// ESC or BEL byte becomes the text \x1b or \x07, which the input would
// otherwise drop without a word), then cuts them to the room the input has
// left, keeping line breaks (a CRLF is one break); when it cut anything
// the Cmd says so.
func clampPaste(msg tea.KeyMsg, room int) (tea.KeyMsg, tea.Cmd) {
	if msg.Type != tea.KeyRunes {
		return msg, nil
	}
	if s := string(msg.Runes); common.Printable(s) != s {
		msg.Runes = []rune(common.Printable(s))
	}
	if len(msg.Runes) <= 1 {
		return msg, nil
	}
	room = max(room, 0)
	cut := max(len(msg.Runes)-room, 0)
	if cut == 0 {
		return msg, nil
	}
	msg.Runes = msg.Runes[:room:room]
	return msg, common.Notify(fmt.Sprintf("pasted text cut: the probe input took %d more characters; %d left out", room, cut))
}

// browse moves through the inputs run before; past the newest is the draft.
func (m *Model) browse(up bool) {
	if m.histPos == len(m.history) {
		m.draft = m.input.Value()
	}
	if up {
		m.histPos = max(m.histPos-1, 0)
	} else {
		m.histPos = min(m.histPos+1, len(m.history))
	}
	if m.histPos == len(m.history) {
		m.input.SetValue(m.draft)
	} else {
		m.input.SetValue(m.history[m.histPos])
	}
	m.input.CursorEnd()
}

// scrollKey handles a key while the input is blurred.
func (m *Model) scrollKey(msg tea.KeyMsg) tea.Cmd {
	k, c := m.keys, m.Keys
	switch {
	case key.Matches(msg, k.Edit):
		m.typing = true
		return m.input.Focus()
	case key.Matches(msg, k.Attach, k.AltAttch):
		return m.attach()
	case key.Matches(msg, k.NextEnv):
		m.nextEnv()
	case isMove(c, msg):
		d, _ := common.MoveStep(c, msg, m.bodyHeight(), len(m.body))
		m.scroll(d)
	case msg.Type == tea.KeyRunes && !msg.Alt:
		// Any other printable key goes back to the input and is typed
		// there: a keystroke is never dropped.
		m.typing = true
		focus := m.input.Focus()
		return tea.Batch(focus, m.inputKey(msg))
	}
	return nil
}

func (m *Model) scroll(d int) {
	m.off = min(max(m.off+d, 0), max(len(m.body)-m.bodyHeight(), 0))
}

func (m *Model) nextEnv() {
	if len(m.envs) > 0 {
		m.choose((m.env + 1) % len(m.envs))
	}
}

// run runs the input against the chosen environment in a Cmd.
func (m *Model) run() tea.Cmd {
	input := strings.TrimSpace(m.input.Value())
	e, ok := m.current()
	if input == "" || !ok || m.deps.Service == nil {
		return nil
	}
	if len(m.history) == 0 || m.history[len(m.history)-1] != input {
		m.history = append(m.history, input)
	}
	m.histPos, m.draft = len(m.history), ""
	m.runSeq++
	m.running = true
	m.pdfWait = mayWaitForPDF(e.Kind, input, probe.PDFState())
	seq, svc, asked := m.runSeq, m.deps.Service, probe.Result{Env: e.Name, Kind: e.Kind, Input: input}
	return func() tea.Msg {
		// Rerun: the probe as asked, within review.CheckTimeout.
		return ran{seq: seq, res: svc.Rerun(context.Background(), asked)}
	}
}

// mayWaitForPDF reports whether a probe of input on a kind environment
// may wait for the PDF engine, in state: it names a PDF, or greps while
// the engine is being prepared (a files environment holds PDFs).
func mayWaitForPDF(kind probe.Kind, input string, state probe.PDFEngine) bool {
	if kind != probe.KindFiles || state == probe.PDFReady {
		return false
	}
	return strings.Contains(strings.ToLower(input), ".pdf") || strings.HasPrefix(input, "grep") && state == probe.PDFPreparing
}

// attach stores the last result as a probe run and links it to the target.
func (m *Model) attach() tea.Cmd {
	switch {
	case m.last == nil:
		return common.NotifyErr("nothing to attach: run a probe first")
	case m.target.ID == "":
		return common.NotifyErr("nothing to attach to: open a proposal (review screen) or a record (bank) first")
	case m.running: // the result on screen is the previous input's
		return common.NotifyErr("a probe is still running: attach its result when it is done")
	case m.busy != "":
		return nil
	}
	m.busy = "attaching…"
	res, target, svc, deps := *m.last, m.target, m.deps.Service, m.deps
	return func() tea.Msg {
		// One transaction: the run is saved and attached, or neither.
		id, err := svc.AttachRun(review.ProbeRun{Result: res, At: svc.Now(), Actor: deps.Operator}, target.Kind, target.ID, deps.Operator)
		if err != nil {
			return attached{target: target, err: err}
		}
		deps.Logf("console: attached %s to %s %s", id, target.Kind, target.ID)
		return attached{run: id, target: target}
	}
}

// isMove reports whether msg is a movement key (common.MoveStep).
func isMove(k common.KeyMap, msg tea.KeyMsg) bool {
	_, ok := common.MoveStep(k, msg, 0, 0)
	return ok
}
