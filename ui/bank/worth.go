package bank

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
)

// What each record is worth (review.Worth): how many tasks retrieved it and
// how they ended, against the bank's tasks over the same period — or, for
// a record an eval run gave to its tasks, how they ended with the bank
// against without memory. The whole bank's worth is computed once per
// load (the service's WorthAll: one pass over the trajectories, and the
// eval runs) in a Cmd, again when another screen or process
// changes the bank. The detail shows the record's worth line, the list
// marks records retrieved mostly by failed tasks, and w sorts the results
// by worth: best first, worst first, back to the index's order.

// worthLoaded is the worth of every retrieved record, for load gen.
type worthLoaded struct {
	gen   int
	worth map[string]review.Worth
	err   error
}

// worthOrder is how the list is sorted.
type worthOrder int

const (
	byIndex      worthOrder = iota // the index's order (id, or score)
	byWorthBest                    // highest lift first
	byWorthWorst                   // lowest lift first
)

// worthState is what the screen keeps of the bank's worth.
type worthState struct {
	worth map[string]review.Worth // nil until loaded; never changed once set
	gen   int
	err   string
	order worthOrder
}

// worthReader reads every record's worth through the service; nil when
// the program has none.
func worthReader(d common.Deps) func() (map[string]review.Worth, error) {
	if d.Service != nil {
		return d.Service.WorthAll
	}
	return nil
}

// loadWorth computes the bank's worth in the background.
func (m *Model) loadWorth() tea.Cmd {
	m.ws.gen++
	gen, read := m.ws.gen, worthReader(m.deps)
	if read == nil {
		return nil
	}
	return func() tea.Msg {
		worth, err := read()
		if err != nil {
			return worthLoaded{gen: gen, err: err}
		}
		return worthLoaded{gen: gen, worth: worth}
	}
}

// worthOf is record id's worth (Retrieved 0 when no task retrieved it).
func (m *Model) worthOf(id string) review.Worth {
	w, ok := m.ws.worth[id]
	if !ok {
		w.Record = id
	}
	return w
}

// updateWorth handles the worth messages; ok is false for any other.
func (m *Model) updateWorth(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case worthLoaded:
		if msg.gen != m.ws.gen {
			return nil, true
		}
		if msg.err != nil {
			m.ws.err = "worth unknown: " + msg.err.Error()
			m.renderDetail()
			return common.NotifyErr("could not read the trajectories for the records' worth: " + msg.err.Error()), true
		}
		m.ws.worth, m.ws.err = msg.worth, ""
		m.renderDetail()
		if m.ws.order != byIndex {
			return m.runSearch(), true // sort again with the new worth
		}
		return nil, true
	}
	return nil, false
}

// loadSortedPage is loadPage while the list is sorted by worth: each page
// is the service's (SearchByWorth), which reads only the hits that have
// a worth entry and a page of the rest; before the worth is loaded the
// Cmd computes it itself.
func (m *Model) loadSortedPage(n int) tea.Cmd {
	m.list.pending[n] = true
	seq, src, req := m.querySeq, m.src, m.request(n)
	worth, worst, read := m.ws.worth, m.ws.order == byWorthWorst, worthReader(m.deps)
	return func() tea.Msg {
		if worth == nil && read != nil {
			var err error
			if worth, err = read(); err != nil {
				return pageLoaded{seq: seq, page: n, err: err}
			}
		}
		res, err := src.SearchByWorth(req, worth, worst)
		return pageLoaded{seq: seq, page: n, res: res, err: err}
	}
}

// cycleWorthOrder is w: index order → best first → worst first → index order.
func (m *Model) cycleWorthOrder() tea.Cmd {
	m.ws.order = (m.ws.order + 1) % 3
	m.setWorthHelp()
	text := map[worthOrder]string{byIndex: "sorted as the index orders them", byWorthBest: "sorted by worth, best first",
		byWorthWorst: "sorted by worth, worst first"}[m.ws.order]
	return tea.Batch(common.Notify(text), m.runSearch())
}

// setWorthHelp says what w does next.
func (m *Model) setWorthHelp() {
	desc := map[worthOrder]string{byIndex: "sort by worth", byWorthBest: "worst first", byWorthWorst: "index order"}[m.ws.order]
	m.keys.Worth.SetHelp("w", desc)
}

// worthTitle is the header's note of the order.
func (m *Model) worthTitle() string {
	switch m.ws.order {
	case byWorthBest:
		return " · by worth, best first"
	case byWorthWorst:
		return " · by worth, worst first"
	}
	return ""
}

// worthMark is the list's mark of a record retrieved mostly by failed
// tasks ("" for others); it reads without colour.
func (m *Model) worthMark(id string) string {
	if m.worthOf(id).MostlyFailed() {
		return m.Styles.Bad.Render("✘ mostly failed ")
	}
	return ""
}

// worthLine is the detail's line: the record's worth in counts.
func (m *Model) worthLine(id string, w int) string {
	st := m.Styles
	switch {
	case m.ws.err != "":
		return st.Error.Render(common.Wrap(m.ws.err, w))
	case m.ws.worth == nil:
		return st.Subtle.Render("worth: loading…")
	}
	wo := m.worthOf(id)
	text := common.Indent(st.Label.Render("worth: "), wo.String(), w, 2)
	if wo.MostlyFailed() {
		text = st.Bad.Render(text)
	}
	return text
}

// worthKey handles w; ok is false for other keys.
func (m *Model) worthKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	if !key.Matches(msg, m.keys.Worth) {
		return nil, false
	}
	return m.cycleWorthOrder(), true
}
