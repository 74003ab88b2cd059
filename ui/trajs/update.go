package trajs

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/widget"
)

// Background work and its results; each carries the request it answers.

type allLoaded struct {
	trajs []review.Trajectory
	err   error
}

type recordsLoaded struct {
	seq    int
	byTraj map[string]*review.TrajectoryRefs
	open   map[string]int // open proposals by the trajectory they came from
	err    error
}

// lemmasLoaded is the lemmas of some records the selected step lists, for
// record load seq.
type lemmasLoaded struct {
	seq    int
	lemmas map[string]string
	err    error
}

type searched struct {
	seq int
	ids map[string]bool
	err error
}

// searchSize caps the trajectories one search returns.
const searchSize = 10000

func itoa(n int) string { return strconv.Itoa(n) }

func (m *Model) loadAll() tea.Cmd {
	store := m.deps.Service
	if store == nil {
		return nil
	}
	return func() tea.Msg {
		ts, err := store.Trajectories()
		slices.SortStableFunc(ts, func(a, b review.Trajectory) int { return common.NaturalCompare(a.ID, b.ID) })
		return allLoaded{trajs: ts, err: err}
	}
}

// loadRecords reads, for every trajectory, the ids and steps of the
// records that came from it (not the records: at a million records that
// would be the whole bank in memory); the lemmas the selected step shows
// are read when it is selected (loadLemmas).
func (m *Model) loadRecords() tea.Cmd {
	store := m.deps.Service
	if store == nil {
		return nil
	}
	m.recSeq++
	seq := m.recSeq
	return func() tea.Msg {
		by, err := store.RecordRefsByTrajectory()
		if err != nil {
			return recordsLoaded{seq: seq, err: err}
		}
		queue, err := store.Queue()
		if err != nil {
			return recordsLoaded{seq: seq, err: err}
		}
		open := map[string]int{}
		for _, p := range queue {
			if p.Trajectory != "" {
				open[p.Trajectory]++
			}
		}
		return recordsLoaded{seq: seq, byTraj: by, open: open}
	}
}

// loadLemmas asks for the lemmas of the selected step's records that are
// not loaded or asked for yet; nil when there are none.
func (m *Model) loadLemmas() tea.Cmd {
	store, t := m.deps.Service, m.selected()
	if store == nil || t == nil || m.step == 0 {
		return nil
	}
	var ids []string
	for _, r := range m.stepRecords(t, m.step) {
		if _, ok := m.lemmas[r.ID]; !ok && !m.lemmaAsked[r.ID] {
			m.lemmaAsked[r.ID] = true
			ids = append(ids, r.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	seq := m.recSeq
	return func() tea.Msg {
		recs, err := store.RecordsByID(ids)
		if err != nil {
			return lemmasLoaded{seq: seq, err: err}
		}
		lemmas := make(map[string]string, len(ids))
		for _, id := range ids {
			lemmas[id] = "" // gone since the scan: shown without a lemma, not asked again
			if r := recs[id]; r != nil {
				lemmas[id] = r.Lemma
			}
		}
		return lemmasLoaded{seq: seq, lemmas: lemmas}
	}
}

func (m *Model) runSearch() tea.Cmd {
	q, seq, ix := m.search.Value(), m.search.Next(), m.deps.Service
	if q == "" || ix == nil {
		m.matches, m.searchErr = nil, ""
		m.applyFilter()
		return nil
	}
	return func() tea.Msg {
		res, err := ix.Search(app.SearchRequest{Query: q, Type: "trajectory", Size: searchSize})
		if err != nil {
			return searched{seq: seq, err: err}
		}
		ids := map[string]bool{}
		for _, h := range res.Hits {
			ids[h.ID] = true
		}
		return searched{seq: seq, ids: ids}
	}
}

// Update handles keys and background results.
func (m *Model) Update(msg tea.Msg) (common.Screen, tea.Cmd) {
	cmd := m.update(msg)
	m.enableKeys()
	return m, tea.Batch(cmd, m.loadLemmas())
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	if p, ok := msg.(common.CuratorProgress); ok {
		if p.Change == common.CuratorLog && m.showsCurator() {
			m.renderDetail() // the spinner is in the title (View); events are in the detail
		}
		return nil
	}
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if m.search.Focused() {
			return m.searchKey(msg)
		}
		return m.handleKey(msg)
	case tea.MouseMsg:
		switch msg.Button {
		case tea.MouseButtonWheelUp:
			m.pane.ScrollUp(3)
		case tea.MouseButtonWheelDown:
			m.pane.ScrollDown(3)
		}
	case allLoaded:
		m.loaded = true
		if msg.err != nil {
			m.loadErr = "could not read the trajectories: " + msg.err.Error()
			return common.NotifyErr(m.loadErr)
		}
		m.all = msg.trajs
		m.applyFilter()
		m.renderDetail() // a reload (QueueChanged) may bring a new packet for the shown one
		if p := m.pending; p != nil {
			m.pending = nil
			return m.open(*p)
		}
	case recordsLoaded:
		if msg.seq != m.recSeq {
			return nil
		}
		if msg.err != nil {
			return common.NotifyErr("could not read the records: " + msg.err.Error())
		}
		m.byTraj, m.openProps = msg.byTraj, msg.open
		m.lemmas, m.lemmaAsked = map[string]string{}, map[string]bool{} // records may have changed
		m.renderDetail()
	case lemmasLoaded:
		if msg.seq != m.recSeq {
			return nil
		}
		if msg.err != nil {
			return common.NotifyErr("could not read the records of the step: " + msg.err.Error())
		}
		for id, l := range msg.lemmas {
			m.lemmas[id] = l
		}
		m.renderDetail()
	case widget.SearchDue:
		if m.search.Due(msg) {
			return m.runSearch()
		}
	case searched:
		if !m.search.Current(msg.seq) {
			return nil
		}
		m.searchErr, m.matches = "", msg.ids
		if msg.err != nil {
			// Nothing was searched: no earlier query's matches stay on
			// screen as if this one had found them.
			m.searchErr, m.matches = msg.err.Error(), map[string]bool{}
		}
		m.applyFilter()
	case common.ShowTrajectory:
		if !m.loaded {
			m.pending = &msg
			return nil
		}
		if !slices.ContainsFunc(m.all, func(t review.Trajectory) bool { return t.ID == msg.ID }) {
			m.pending = &msg // imported since the list was read (an eval transcript)
			return m.loadAll()
		}
		return tea.Batch(m.open(msg), m.loadRecords()) // records may have changed since the scan
	case common.QueueChanged:
		return m.loadAll() // a curator run may have distilled a trajectory
	}
	return nil
}

// applyFilter rebuilds shown, keeping the selected trajectory when it passes.
func (m *Model) applyFilter() {
	keep := ""
	if t := m.selected(); t != nil {
		keep = t.ID
	}
	m.shown = m.shown[:0]
	m.cursor = 0
	for i, t := range m.all {
		if m.env != "" && t.Env != m.env ||
			m.outcome == passed && !t.Outcome.Succeeded() || m.outcome == failed && !t.Outcome.Failed() ||
			m.outcome == unrewarded && t.Outcome.Rewarded() ||
			m.matches != nil && !m.matches[t.ID] {
			continue
		}
		if t.ID == keep {
			m.cursor = len(m.shown)
		}
		m.shown = append(m.shown, i)
	}
	m.moveTo(m.cursor)
}

// open selects trajectory id at a step, clearing filters that hide it.
func (m *Model) open(msg common.ShowTrajectory) tea.Cmd {
	i := slices.IndexFunc(m.all, func(t review.Trajectory) bool { return t.ID == msg.ID })
	if i < 0 {
		return common.NotifyErr("trajectory " + msg.ID + " is not in the bank")
	}
	if !slices.Contains(m.shown, i) {
		m.env, m.outcome, m.matches = "", anyOutcome, nil
		m.search.SetValue("")
		m.applyFilter()
	}
	m.moveTo(slices.Index(m.shown, i))
	m.focus = paneDetail
	m.layout()
	m.step, m.whole = msg.Step, false
	m.renderDetail()
	m.scrollToStep()
	return nil
}

// moveTo puts the cursor at i and keeps it on screen.
func (m *Model) moveTo(i int) {
	m.cursor = min(max(i, 0), max(len(m.shown)-1, 0))
	h := m.listHeight()
	if m.cursor < m.top {
		m.top = m.cursor
	}
	if m.cursor >= m.top+h {
		m.top = m.cursor - h + 1
	}
	m.top = min(max(m.top, 0), max(len(m.shown)-h, 0))
	if t := m.selected(); t == nil || t.ID != m.paneFor {
		m.step, m.whole = 0, false
		m.renderDetail()
		m.pane.GotoTop()
	}
}

func (m *Model) searchKey(msg tea.KeyMsg) tea.Cmd {
	_, cmd := m.search.Key(m.Keys, msg)
	return cmd
}

func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := m.Keys
	switch {
	case key.Matches(msg, k.Search):
		return m.search.Focus()
	case key.Matches(msg, k.NextPane):
		m.focus = 1 - m.focus
		m.layout()
	case key.Matches(msg, m.keys.Env):
		m.env = nextEnv(m.all, m.env)
		m.applyFilter()
	case key.Matches(msg, m.keys.Outcome):
		m.outcome = (m.outcome + 1) % len(outcomeNames)
		m.applyFilter()
	case key.Matches(msg, k.Next), key.Matches(msg, k.Prev):
		if t := m.selected(); t != nil && len(t.Steps) > 0 {
			d := 1
			if key.Matches(msg, k.Prev) {
				d = -1
			}
			m.step = min(max(m.step+d, 1), len(t.Steps))
			m.whole = false // another step: cut again
			m.renderDetail()
			m.scrollToStep()
		}
	case key.Matches(msg, m.keys.Whole):
		m.whole = !m.whole
		m.renderDetail()
		m.scrollToStep()
	case key.Matches(msg, k.Curate):
		return m.curate()
	case key.Matches(msg, m.keys.Open):
		if recs := m.stepRecords(m.selected(), m.step); len(recs) > 0 {
			id := recs[0].ID
			return func() tea.Msg { return common.ShowRecord{ID: id} }
		}
	case key.Matches(msg, k.Confirm) && m.focus == paneList:
		m.focus = paneDetail
		m.layout()
	case key.Matches(msg, k.Cancel) && m.focus == paneDetail:
		m.focus = paneList
		m.layout()
	case m.focus == paneDetail:
		common.ScrollPane(k, &m.pane, msg)
	default:
		m.moveList(msg)
	}
	return nil
}

func (m *Model) moveList(msg tea.KeyMsg) {
	if d, ok := common.MoveStep(m.Keys, msg, m.listHeight(), len(m.shown)); ok {
		m.moveTo(m.cursor + d)
	}
}

// scrollToStep scrolls the detail so the selected step is near the top.
func (m *Model) scrollToStep() {
	if at, ok := m.stepAt[m.step]; ok {
		m.pane.SetYOffset(max(at-1, 0))
	}
}

// nextEnv cycles the env filter through the trajectories' envs.
func nextEnv(all []review.Trajectory, cur string) string {
	var envs []string
	for _, t := range all {
		if t.Env != "" && !slices.Contains(envs, t.Env) {
			envs = append(envs, t.Env)
		}
	}
	slices.Sort(envs)
	i := slices.Index(envs, cur) // -1 for "any": the first env next
	if i+1 >= len(envs) {
		return ""
	}
	return envs[i+1]
}

func (m *Model) filterText() string {
	s := ""
	if m.env != "" {
		s += " · env=" + m.env
	}
	if m.outcome != anyOutcome {
		s += " · " + outcomeNames[m.outcome]
	}
	if m.matches != nil {
		s += fmt.Sprintf(" · %q", m.search.Value())
	}
	return s
}
