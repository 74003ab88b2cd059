package bank

import (
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/form"
	"github.com/memreview/memreview/ui/widget"
)

// Update handles keys, the mouse wheel and background results.
func (m *Model) Update(msg tea.Msg) (common.Screen, tea.Cmd) {
	cmd := m.update(msg)
	m.enableKeys()
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	if cmd, ok := m.updateWorth(msg); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case tea.KeyMsg:
		switch {
		case m.overlay != nil:
			var cmd tea.Cmd
			m.overlay, cmd = m.overlay.Update(m, msg)
			return cmd
		case m.search.Focused():
			return m.searchKey(msg)
		}
		return m.handleKey(msg)
	case tea.MouseMsg:
		return m.handleMouse(msg)
	case form.EnvNames:
		m.envs = msg.Names
		if f, ok := m.overlay.(*editForm); ok {
			f.SetEnvs(msg.Names)
		}
	case widget.SearchDue:
		if !m.search.Due(msg) {
			return nil // another keystroke came since, or another screen's box
		}
		if cmd, ok := m.keepResults(); ok {
			return cmd
		}
		return m.runSearch()
	case pageLoaded:
		return m.pageLoaded(msg)
	case facetsLoaded:
		return m.facetsLoaded(msg)
	case recordsLoaded:
		if msg.gen != m.gen {
			// The cache was reset while these were read: ask again for
			// the rows on screen, or they would wait on "…" until the
			// next key.
			return m.fill()
		}
		for _, id := range msg.ids {
			delete(m.asked, id)
			if msg.err == nil {
				m.recs[id] = msg.recs[id] // nil: gone from the bank
			}
		}
		if msg.err != nil {
			return tea.Batch(common.NotifyErr("could not read records: "+msg.err.Error()), m.counts())
		}
		return m.counts()
	case detailLoaded:
		if msg.seq != m.detailSeq || msg.id != m.selected() {
			return nil
		}
		m.detail, m.detailErr = msg.d, ""
		if msg.err != nil {
			m.detailErr = msg.err.Error()
			m.renderDetail()
			return nil
		}
		m.recs[msg.id] = msg.d.Record
		m.setLinks()
		m.renderDetail()
		m.pane.GotoTop()
		// The console attaches to a record newly shown. A reload of the
		// one shown (a change elsewhere: refresh) does not announce it
		// again: the operator may be on another screen, focused on a
		// proposal there (the root announces this screen's focus when it
		// is shown again).
		if msg.d.Record != nil && msg.id != m.announced {
			m.announced = msg.id
			return common.FocusOn("record", msg.id)
		}
	case written:
		return m.written(msg)
	case undoAsked:
		return m.undoAsked(msg)
	case mergeLoaded:
		return m.mergeReady(msg)
	case verified:
		return m.verified(msg)
	case retrieved:
		if rp, ok := m.overlay.(*retrievePreview); ok && msg.seq == rp.seq {
			rp.res, rp.err, rp.linesW = msg.res, msg.err, 0
		}
	case common.ShowRecord:
		return m.showRecord(msg.ID)
	case recheckBehind:
		if msg.seq == m.querySeq && m.search.Current(msg.seq) {
			return m.research() // the index has caught up further since
		}
	case common.BankChanged:
		if msg.From != changedFrom && m.src != nil {
			// another screen's write: the rows and the detail may be old
			// versions, and another process may have added trajectories
			return tea.Batch(m.refresh(), m.loadWorth())
		}
	}
	return nil
}

// recheckBehind asks for the query of sequence seq again: its results
// came while the index was behind the bank.
type recheckBehind struct{ seq int }

// behindRecheckEvery is how often a query answered while the index was
// behind runs again, until an answer comes from an index caught up.
const behindRecheckEvery = time.Second

// pageLoaded stores a page of hits of the current query.
func (m *Model) pageLoaded(msg pageLoaded) tea.Cmd {
	if msg.seq != m.querySeq || !m.search.Current(msg.seq) {
		return nil // the query changed since
	}
	delete(m.list.pending, msg.page)
	if msg.err != nil {
		if msg.page == 0 {
			m.searched, m.searchErr = true, msg.err.Error()
			m.list.total, m.list.stale = 0, false
			m.list.pages = map[int][]app.Hit{}
			// No count, time or detail of an earlier query stays beside
			// the error: nothing was searched.
			m.took, m.ranked, m.rankedOf, m.unsearched = "", 0, 0, 0
			if m.detail != nil {
				m.detail, m.detailErr = nil, ""
				m.detailSeq++
				m.renderDetail()
			}
			return nil
		}
		return common.NotifyErr("could not page the results: " + msg.err.Error())
	}
	if msg.page == 0 {
		m.list.pages, m.list.stale = map[int][]app.Hit{}, false
		m.searched, m.searchErr = true, ""
		m.list.total = int(msg.res.Total)
		m.totalEstimated = msg.res.Estimated // page 0 asks for no facets: only the total can be estimated
		m.ranked, m.rankedOf = msg.res.Ranked, 0
		if m.ranked > 0 && m.ranked < msg.res.Total { // only those can be paged to
			m.rankedOf, m.list.total = m.list.total, int(m.ranked)
		}
		m.took = msg.res.Took.Round(time.Microsecond).String()
		if m.toTop {
			m.list.cursor, m.list.top, m.toTop = 0, 0, false
		}
		m.list.move(m.list.cursor)
		if m.list.total == 0 && m.detail != nil { // nothing found: no stale detail
			m.detail, m.detailErr = nil, ""
			m.detailSeq++
			m.renderDetail()
		}
	}
	m.list.pages[msg.page] = msg.res.Hits
	if msg.page == 0 {
		m.countsDue = true // once the rows on screen are in (counts)
		m.unsearched = msg.res.Unsearched
		var again tea.Cmd
		if msg.res.Behind > 0 {
			again = common.Heartbeat(behindRecheckEvery, recheckBehind{seq: msg.seq})
		}
		return tea.Batch(m.fill(), m.counts(), again)
	}
	return m.fill()
}

// counts starts what the first page of a query waits to ask for until the
// rows on screen have loaded, so that they do not share the cores with
// it: the query's facet counts (over every hit) and, the first time, the
// bank's worth. nil while rows are still loading or when nothing is due.
func (m *Model) counts() tea.Cmd {
	if !m.countsDue || len(m.asked) > 0 {
		return nil
	}
	m.countsDue = false
	cmds := []tea.Cmd{m.loadFacets()}
	if !m.worthAsked {
		m.worthAsked = true
		cmds = append(cmds, m.loadWorth())
	}
	return tea.Batch(cmds...)
}

// fill asks for the pages and record details the rows on screen lack, and
// for the selected record's detail when the selection changed.
func (m *Model) fill() tea.Cmd {
	if m.list.stale {
		return nil // page 0 of the new query decides what is shown
	}
	var cmds []tea.Cmd
	for _, p := range m.list.window() {
		if _, ok := m.list.pages[p]; !ok && !m.list.pending[p] {
			cmds = append(cmds, m.loadPage(p))
		}
	}
	m.list.trim()
	if len(m.recs) > 20*pageSize { // bound the cache; rows on screen reload below
		m.resetCache()
	}
	var missing []string
	for _, id := range m.visibleIDs() {
		if _, ok := m.recs[id]; !ok && !m.asked[id] {
			missing = append(missing, id)
		}
	}
	cmds = append(cmds, m.loadRecords(missing))
	if id := m.selected(); id != "" && (m.reloadDetail || m.detail == nil || m.detail.Record == nil || m.detail.Record.ID != id) {
		cmds = append(cmds, m.loadDetail())
	}
	return tea.Batch(cmds...)
}

// searchKey handles a key while the search box has focus: every change of
// the query starts the debounce; the search runs in a Cmd when it fires.
func (m *Model) searchKey(msg tea.KeyMsg) tea.Cmd {
	_, cmd := m.search.Key(m.Keys, msg)
	return cmd
}

func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := m.Keys
	switch {
	case key.Matches(msg, k.Search):
		return m.search.Focus()
	case key.Matches(msg, k.Filter):
		m.overlay = newFacetPicker(m)
		return nil
	case key.Matches(msg, m.keys.Clear):
		m.filters = map[string][]string{}
		m.search.SetValue("")
		return tea.Batch(common.Notify("filters and query cleared"), m.runSearch())
	case key.Matches(msg, m.keys.Retrieve):
		m.overlay = newRetrievePreview(m)
		return nil
	case key.Matches(msg, k.NextPane):
		m.focus = 1 - m.focus
		return nil
	case key.Matches(msg, k.Cancel) && m.focus == paneDetail:
		m.focus = paneList
		return nil
	}
	if cmd, ok := m.worthKey(msg); ok {
		return cmd
	}
	if cmd, ok := m.verbKey(msg); ok {
		return cmd
	}
	if m.focus == paneDetail {
		return m.detailKey(msg)
	}
	step, moves := common.MoveStep(k, msg, m.list.height, m.list.total)
	switch {
	case key.Matches(msg, m.keys.Mark):
		if id := m.selected(); id != "" {
			if _, ok := m.marks[id]; ok {
				delete(m.marks, id)
			} else {
				m.marks[id] = 0
				if r := m.recs[id]; r != nil {
					m.marks[id] = r.Version
				}
			}
			m.list.move(m.list.cursor + 1)
		}
	case key.Matches(msg, k.Confirm):
		if m.selected() != "" {
			m.focus = paneDetail
		}
		return nil
	case moves:
		m.list.move(m.list.cursor + step)
	default:
		return nil
	}
	return m.fill()
}

// detailKey scrolls the detail and opens its links.
func (m *Model) detailKey(msg tea.KeyMsg) tea.Cmd {
	k := m.Keys
	if common.ScrollPane(k, &m.pane, msg) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Next), key.Matches(msg, k.Prev):
		if n := len(m.links); n > 0 {
			step := 1
			if key.Matches(msg, k.Prev) {
				step = n - 1
			}
			m.link = (m.link + step) % n
			m.renderDetail()
		}
	case key.Matches(msg, k.Confirm):
		if m.link < len(m.links) {
			l := m.links[m.link]
			return func() tea.Msg { return common.ShowTrajectory{ID: l.traj, Step: l.step} }
		}
	}
	return nil
}

// showRecord searches for one record by id and selects it.
func (m *Model) showRecord(id string) tea.Cmd {
	m.search.SetValue("id:" + app.EscapeQuery(id))
	m.filters = map[string][]string{}
	m.focus = paneDetail
	return m.runSearch()
}

// handleMouse scrolls the list or the detail with the wheel.
func (m *Model) handleMouse(msg tea.MouseMsg) tea.Cmd {
	if m.overlay != nil || (msg.Button != tea.MouseButtonWheelUp && msg.Button != tea.MouseButtonWheelDown) {
		return nil
	}
	d := 3
	if msg.Button == tea.MouseButtonWheelUp {
		d = -3
	}
	lw, _ := m.paneWidths()
	if m.wide() && msg.X >= lw || !m.wide() && m.focus == paneDetail {
		if d < 0 {
			m.pane.ScrollUp(-d)
		} else {
			m.pane.ScrollDown(d)
		}
		return nil
	}
	m.list.move(m.list.cursor + d)
	return m.fill()
}
