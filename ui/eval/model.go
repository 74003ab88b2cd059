package eval

import (
	"strconv"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
)

// Poll intervals: the runs are read again every pollRunning while one is
// running (its progress moves), every pollIdle otherwise (a run another
// process starts appears).
const (
	pollRunning = time.Second
	pollIdle    = 5 * time.Second
)

// The screen's two views: the runs with the selected one's report, and
// the selected run's task runs.
const (
	viewRuns = iota
	viewTasks
)

// Keys are the keys this screen adds (declared with the others in
// common.KeyMap).
type Keys = common.EvalKeys

// Model is the Eval screen.
type Model struct {
	common.Common
	deps common.Deps
	keys Keys

	runs    []app.EvalRunInfo
	loaded  bool
	loadErr string
	cursor  int // into runs
	top     int

	rep     *app.EvalReport // the selected run's report
	repFor  string          // the run rep is of
	repErr  string
	repSeq  int
	runsSeq int
	pollGen int

	view      int
	tasks     []int // indexes into rep.Runs the condition filter shows
	cond      int   // 0: every condition, else rep.Plan.Conditions[cond-1]
	tcursor   int
	ttop      int
	opening   bool
	pollEvery time.Duration
}

// New returns the Eval screen; Init reads the runs.
func New(c common.Common, deps common.Deps) common.Screen {
	m := &Model{Common: c, deps: deps, keys: c.Keys.Eval, pollEvery: pollIdle}
	return m
}

// Init reads the runs and starts following them.
func (m *Model) Init() tea.Cmd { return tea.Batch(m.loadRuns(), m.poll()) }

// SetSize keeps the cursors on screen.
func (m *Model) SetSize(w, h int) {
	m.Width, m.Height = w, h
	m.keepVisible()
}

// Title is the header's text.
func (m *Model) Title() string {
	switch {
	case !m.loaded:
		return "Eval …"
	case m.view == viewTasks && m.rep != nil:
		return "Eval " + m.rep.Plan.ID + " · task runs " + itoa(len(m.tasks)) + "/" + itoa(len(m.rep.Runs)) + m.condText()
	}
	return "Eval " + itoa(len(m.runs)) + " run" + plural(len(m.runs))
}

// ShortHelp lists the keys that apply now.
func (m *Model) ShortHelp() []key.Binding {
	k := m.Keys
	if m.view == viewTasks {
		return []key.Binding{k.Up, k.Down, m.keys.Open, m.keys.Condition, m.keys.Back}
	}
	return []key.Binding{k.Up, k.Down, m.keys.Tasks}
}

// FullHelp lists every key of the screen.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.Keys
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{m.keys.Tasks, m.keys.Open, m.keys.Condition, m.keys.Back},
	}
}

// selectedRun is the run under the cursor, nil for none.
func (m *Model) selectedRun() *app.EvalRunInfo {
	if m.cursor < 0 || m.cursor >= len(m.runs) {
		return nil
	}
	return &m.runs[m.cursor]
}

// selectedTask is the task run under the cursor of the task view.
func (m *Model) selectedTask() *app.EvalTaskRun {
	if m.rep == nil || m.tcursor < 0 || m.tcursor >= len(m.tasks) {
		return nil
	}
	return &m.rep.Runs[m.tasks[m.tcursor]]
}

// condName is the condition filter's condition, "" for all.
func (m *Model) condName() string {
	if m.rep == nil || m.cond <= 0 || m.cond > len(m.rep.Plan.Conditions) {
		return ""
	}
	return m.rep.Plan.Conditions[m.cond-1]
}

func (m *Model) condText() string {
	if c := m.condName(); c != "" {
		return " · " + common.PrintableLine(c)
	}
	return ""
}

// filterTasks rebuilds the task view's rows.
func (m *Model) filterTasks() {
	m.tasks = m.tasks[:0]
	if m.rep == nil {
		return
	}
	c := m.condName()
	for i := range m.rep.Runs {
		if c == "" || m.rep.Runs[i].Condition == c {
			m.tasks = append(m.tasks, i)
		}
	}
	m.tcursor = min(m.tcursor, max(len(m.tasks)-1, 0))
	m.keepVisible()
}

func itoa(n int) string { return strconv.Itoa(n) }
