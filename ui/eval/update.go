package eval

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
)

// Background results; each names what asked for it and is dropped when
// the screen has moved on.
type (
	runsLoaded struct {
		seq  int
		runs []app.EvalRunInfo
		err  error
	}
	reportLoaded struct {
		seq int
		id  string
		rep *app.EvalReport
		err error
	}
	// polled is the follow timer of generation gen.
	polled struct{ gen int }
	// opened says run id's transcripts are in the bank: traj is the one
	// to show.
	opened struct {
		run, traj string
		n         int // transcripts imported now
		err       error
	}
)

// loadRuns reads the runs.
func (m *Model) loadRuns() tea.Cmd {
	svc := m.deps.Service
	if svc == nil {
		return nil
	}
	m.runsSeq++
	seq := m.runsSeq
	return func() tea.Msg {
		runs, err := svc.EvalRuns()
		return runsLoaded{seq: seq, runs: runs, err: err}
	}
}

// loadReport reads the selected run's report.
func (m *Model) loadReport() tea.Cmd {
	r := m.selectedRun()
	svc := m.deps.Service
	if r == nil || svc == nil {
		return nil
	}
	m.repSeq++
	seq, id := m.repSeq, r.ID
	return func() tea.Msg {
		rep, err := svc.EvalReport(id)
		return reportLoaded{seq: seq, id: id, rep: rep, err: err}
	}
}

// poll waits for the next reading of the runs.
func (m *Model) poll() tea.Cmd {
	m.pollGen++
	gen, every := m.pollGen, m.pollEvery
	return common.Heartbeat(every, polled{gen: gen})
}

// running reports whether any run is being run.
func (m *Model) running() bool {
	for _, r := range m.runs {
		if r.Running {
			return true
		}
	}
	return false
}

// Update handles keys, background results and the follow timer.
func (m *Model) Update(msg tea.Msg) (common.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return m, m.handleKey(msg)
	case runsLoaded:
		if msg.seq != m.runsSeq {
			return m, nil
		}
		m.loaded = true
		if msg.err != nil {
			m.loadErr = "could not read the eval runs: " + msg.err.Error()
			return m, nil
		}
		m.loadErr = ""
		keep := ""
		if r := m.selectedRun(); r != nil {
			keep = r.ID
		}
		m.runs = msg.runs
		m.cursor = 0
		for i, r := range m.runs {
			if r.ID == keep {
				m.cursor = i
			}
		}
		m.keepVisible()
		every := pollIdle
		if m.running() {
			every = pollRunning
		}
		var cmds []tea.Cmd
		if every < m.pollEvery {
			// A run is going: follow it from now, not from the end of the
			// idle timer that is waiting (a new generation; that one's
			// tick is ignored).
			m.pollEvery = every
			cmds = append(cmds, m.poll())
		}
		m.pollEvery = every
		if r := m.selectedRun(); r != nil && (m.rep == nil || m.repFor != r.ID || m.rep.Done != r.Done || m.rep.Running != r.Running) {
			cmds = append(cmds, m.loadReport())
		}
		return m, tea.Batch(cmds...)
	case reportLoaded:
		if msg.seq != m.repSeq {
			return m, nil
		}
		if msg.err != nil {
			m.repErr = "could not read run " + msg.id + ": " + msg.err.Error()
			m.rep, m.repFor = nil, msg.id
			return m, nil
		}
		m.rep, m.repFor, m.repErr = msg.rep, msg.id, ""
		m.filterTasks()
	case polled:
		if msg.gen != m.pollGen {
			return m, nil
		}
		return m, tea.Batch(m.loadRuns(), m.poll())
	case opened:
		m.opening = false
		if msg.err != nil {
			return m, common.NotifyErr("could not import the run's transcripts: " + msg.err.Error())
		}
		traj := msg.traj
		note := "the transcript " + traj
		if msg.n > 0 {
			note = fmt.Sprintf("imported %d transcripts of %s as trajectories", msg.n, msg.run)
		}
		return m, tea.Batch(common.Changed("eval"), common.Notify(note), func() tea.Msg { return common.ShowTrajectory{ID: traj} })
	case common.BankChanged:
		if msg.From != "eval" {
			return m, m.loadRuns()
		}
	}
	return m, nil
}

// handleKey moves the cursors, switches views and opens transcripts.
func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := m.Keys
	if m.view == viewTasks {
		switch {
		case key.Matches(msg, m.keys.Back):
			m.view = viewRuns
		case key.Matches(msg, m.keys.Open):
			return m.openTranscript()
		case key.Matches(msg, m.keys.Condition):
			if m.rep != nil {
				m.cond = (m.cond + 1) % (len(m.rep.Plan.Conditions) + 1)
				m.filterTasks()
			}
		default:
			m.tcursor = m.move(msg, m.tcursor, len(m.tasks), m.tasksHeight())
			m.keepVisible()
		}
		return nil
	}
	switch {
	case key.Matches(msg, m.keys.Tasks):
		if m.rep != nil && m.selectedRun() != nil && m.repFor == m.selectedRun().ID {
			m.view, m.tcursor, m.ttop = viewTasks, 0, 0
			m.filterTasks()
		}
		return nil
	case key.Matches(msg, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom):
		was := m.cursor
		m.cursor = m.move(msg, m.cursor, len(m.runs), m.runsHeight())
		m.keepVisible()
		if m.cursor != was {
			m.cond = 0
			return m.loadReport()
		}
	}
	return nil
}

// move is the cursor after a moving key, in a list of n rows of which
// page show at once.
func (m *Model) move(msg tea.KeyMsg, cur, n, page int) int {
	k := m.Keys
	switch {
	case key.Matches(msg, k.Up):
		cur--
	case key.Matches(msg, k.Down):
		cur++
	case key.Matches(msg, k.PageUp):
		cur -= max(page, 1)
	case key.Matches(msg, k.PageDown):
		cur += max(page, 1)
	case key.Matches(msg, k.Top):
		cur = 0
	case key.Matches(msg, k.Bottom):
		cur = n - 1
	}
	return min(max(cur, 0), max(n-1, 0))
}

// openTranscript imports the run's transcripts (once; later calls find
// them in the bank) and shows the selected one on the trajectories
// screen.
func (m *Model) openTranscript() tea.Cmd {
	tr, svc := m.selectedTask(), m.deps.Service
	if tr == nil || svc == nil || m.opening {
		return nil
	}
	m.opening = true
	run, traj := m.rep.Plan.ID, app.EvalTrajectoryID(m.rep.Plan.ID, tr)
	return tea.Batch(common.Notify("importing the transcripts of "+run+"…"), func() tea.Msg {
		n, err := svc.ImportEval(run)
		return opened{run: run, traj: traj, n: n, err: err}
	})
}

// keepVisible scrolls both lists to their cursors.
func (m *Model) keepVisible() {
	m.top = scrolled(m.top, m.cursor, m.runsHeight())
	m.ttop = scrolled(m.ttop, m.tcursor, m.tasksHeight())
}

func scrolled(top, cur, h int) int {
	h = max(h, 1)
	if cur < top {
		top = cur
	}
	if cur >= top+h {
		top = cur - h + 1
	}
	return max(top, 0)
}
