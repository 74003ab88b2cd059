// Package trajs is the trajectories screen: the finished task runs with
// their outcome and reward, filtered by environment and outcome and
// searched through the index, and for the selected one its distilled
// packet and raw steps with tool calls and results. Each step lists the
// records whose provenance points at it, and enter opens them in the bank.
// It answers common.ShowTrajectory by opening a trajectory at a step, and
// c runs the LLM curator on the selected trajectory, its calls streaming
// into the detail.
package trajs

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/widget"
)

// WideWidth is the width from which list and detail sit side by side.
const WideWidth = 100

const (
	paneList = iota
	paneDetail
)

// Outcome filters.
const (
	anyOutcome = iota
	passed
	failed
	unrewarded // no outcome, or one that is not a reward
)

var outcomeNames = []string{"any", "passed", "failed", "no reward"}

// Keys are the keys this screen adds (declared with the others in
// common.KeyMap).
type Keys = common.TrajKeys

// Model is the trajectories screen.
type Model struct {
	common.Common
	deps common.Deps
	keys Keys

	all     []review.Trajectory
	loaded  bool
	loadErr string
	shown   []int // indexes into all that pass the filters, in order
	cursor  int   // index into shown
	top     int

	env     string // "" = any
	outcome int

	search    widget.SearchBox
	matches   map[string]bool // ids the query found; nil = no query
	searchErr string

	byTraj     map[string]*review.TrajectoryRefs // records (id, steps) by the trajectory they came from
	openProps  map[string]int                    // open proposals by the trajectory they came from
	recSeq     int
	lemmas     map[string]string // lemmas of records the selected step listed, by id
	lemmaAsked map[string]bool   // lemmas requested, not yet back

	focus   int
	step    int // the selected step of the detail (1-based; 0 = none)
	pane    viewport.Model
	stepAt  map[int]int  // first content line of each step
	cut     map[int]bool // steps whose content or a result lost lines to maxResultLines
	whole   bool         // x: the selected step shows every line
	paneFor string       // the trajectory the pane holds
	pending *common.ShowTrajectory
}

// New returns the trajectories screen; Init loads the trajectories.
func New(c common.Common, deps common.Deps) common.Screen {
	m := &Model{Common: c, deps: deps, lemmas: map[string]string{}, lemmaAsked: map[string]bool{}}
	m.keys = c.Keys.Trajs
	m.search = widget.NewSearchBox("trajectories", "search tasks, answers, tool calls (all terms must match)")
	m.pane = viewport.New(0, 0)
	m.pane.MouseWheelEnabled = false
	m.Keys.Next.SetHelp("]", "next step")
	m.Keys.Prev.SetHelp("[", "prev step")
	m.enableKeys()
	return m
}

// Init loads the trajectories and the records that came from them.
func (m *Model) Init() tea.Cmd { return tea.Batch(m.loadAll(), m.loadRecords()) }

// Capturing reports whether the search box has focus.
func (m *Model) Capturing() bool { return m.search.Focused() }

// SetSize lays out and re-wraps the detail.
func (m *Model) SetSize(w, h int) {
	m.Width, m.Height = w, h
	m.search.SetWidth(w)
	m.layout() // re-wraps the detail when its width changed
}

// selected is the trajectory under the cursor.
func (m *Model) selected() *review.Trajectory {
	if m.cursor < 0 || m.cursor >= len(m.shown) {
		return nil
	}
	return &m.all[m.shown[m.cursor]]
}

// stepRecords lists the records whose provenance points at step n of t.
func (m *Model) stepRecords(t *review.Trajectory, n int) []review.RecordRef {
	var out []review.RecordRef
	refs := m.byTraj[t.ID]
	for i := range refs.Len() {
		if r := refs.At(i); r.Steps != (review.StepRange{}) && r.Steps.Contains(n) {
			out = append(out, r)
		}
	}
	return out
}

func (m *Model) enableKeys() {
	t := m.selected()
	m.keys.Open.SetEnabled(m.focus == paneDetail && t != nil && len(m.stepRecords(t, m.step)) > 0)
	m.keys.Whole.SetEnabled(t != nil && m.step > 0 && (m.whole || m.cut[m.step]))
	m.Keys.Next.SetEnabled(t != nil && len(t.Steps) > 0)
	m.Keys.Prev.SetEnabled(t != nil && len(t.Steps) > 0)
	m.Keys.Curate.SetEnabled(m.deps.Curator != nil && t != nil)
}

// ShortHelp lists the keys that apply now.
func (m *Model) ShortHelp() []key.Binding {
	k := m.Keys
	if m.search.Focused() {
		return []key.Binding{k.Cancel, k.Confirm}
	}
	return []key.Binding{k.Search, m.keys.Env, m.keys.Outcome, k.NextPane, k.Next, k.Prev, m.keys.Whole, m.keys.Open, k.Curate}
}

// FullHelp lists every key of the screen for the help overlay.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.Keys
	return [][]key.Binding{
		{k.Search, m.keys.Env, m.keys.Outcome, k.NextPane},
		{k.Next, k.Prev, m.keys.Whole, m.keys.Open, k.Curate},
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
	}
}

// Title is the header: how many trajectories pass the filters.
func (m *Model) Title() string {
	if !m.loaded {
		return "Trajectories …"
	}
	if m.searchErr != "" {
		return "Trajectories (bad query)" + m.filterText()
	}
	return "Trajectories " + itoa(len(m.shown)) + "/" + itoa(len(m.all)) + m.filterText()
}
