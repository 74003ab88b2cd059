// Package bank is the bank browser: a search box over the Bleve index
// (query-string syntax, searched as you type), facet filters by category,
// env and status, a windowed result list that pages hits from the index and
// loads record details lazily for the rows on screen, and a detail pane with
// every field of the selected record, its versions as diffs, its provenance,
// its checks and the trajectories that retrieved it. The operator's record
// verbs (edit, narrow, merge, delete, undo, re-baseline), each with an
// optional note (N), and live re-verification run in tea.Cmds through the
// service, audited like proposal decisions. R opens the
// retrieval preview: the top-k records a task agent would be given.
package bank

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/widget"
)

// WideWidth is the width from which list and detail sit side by side.
const WideWidth = 100

// The panes.
const (
	paneList = iota
	paneDetail
)

// facetFields are the fields the screen counts and filters by.
var facetFields = []string{"category", "env", "status"}

// Keys are the keys this screen adds (declared with the others in
// common.KeyMap).
type Keys = common.BankKeys

// DefaultKeys returns the screen's own keys.
func DefaultKeys() Keys { return common.DefaultKeyMap().Bank }

// Model is the bank screen.
type Model struct {
	common.Common
	deps common.Deps
	src  Source
	keys Keys

	search  widget.SearchBox
	filters map[string][]string // facet field → chosen terms
	facets  map[string][]app.FacetCount
	// facetsPending: the counts of the current query are being counted
	// (loadFacets); facets still holds the previous query's.
	facetsPending bool
	facetsApprox  facetApprox // how the counts in facets were taken
	// totalEstimated: the index estimated the hit count (a phrase query
	// with more candidates than it checks); shown as "≈ 12,200 records".
	totalEstimated bool
	// ranked: the index ranked only the first ranked hits of a huge
	// result set (app.SearchResults.Ranked); the status line says so, and
	// the list holds those hits while the count shows rankedOf, the
	// estimated total.
	ranked   uint64
	rankedOf int
	// unsearched: the index was behind the bank when it answered and
	// this many changed items were not searched (app.SearchResults.Unsearched);
	// the status line says so, and the query runs again every
	// behindRecheck while the index is behind.
	unsearched int
	querySeq   int    // the latest query; every search result carries it
	searchedAs string // the latest query as the index reads it (app.QueryAsRead)
	searched   bool
	searchErr  string
	took       string

	list  list
	toTop bool                      // the next first page is of a new query: cursor to the top
	recs  map[string]*review.Record // record details of rows shown, by id
	asked map[string]bool           // record details requested, not yet back
	gen   int                       // cache generation: bumped after every write
	marks map[string]int            // rows marked for merging → the version shown when marked (0: not loaded)

	detail    *Detail // the selected record's detail; nil while loading
	detailErr string  // why the selected record's detail did not load
	detailSeq int
	announced string // the record the last loaded detail announced as the focus
	links     []link // trajectories the detail links to
	link      int    // the selected link
	pane      viewport.Model
	focus     int

	retrieveSeq int // the latest retrieval preview request
	// reloadDetail: refresh asked for the detail again; the one shown
	// stays until it is in (fill loads it).
	reloadDetail bool

	ws         worthState // what each record is worth, and the sort by it (worth.go)
	worthAsked bool       // the first load of the worth has started
	countsDue  bool       // the facets (and worth) wait for the rows on screen (counts)

	note    string       // N: the note the next verb carries (note.go)
	undos   common.Undos // the decisions made on this screen, which u undoes (undo.go)
	busy    string       // "deleting mem_3…" while a write is in flight
	overlay overlay      // a form, picker or question over the screen; nil when none
	envs    []string     // the environments the bank declares, for the forms (form.EnvNames); nil until read
}

// link is a trajectory step the detail pane can open.
type link struct {
	traj string
	step int
}

// overlay is a form, picker or question that takes the keys while open.
type overlay = common.Overlay[*Model]

// New returns the bank screen over the program's service; Init runs
// the first search (everything).
func New(c common.Common, deps common.Deps) common.Screen {
	var src Source
	if deps.Service != nil {
		src = ServiceSource{Service: deps.Service}
	}
	return NewWithSource(c, deps, src)
}

// NewWithSource returns the bank screen reading from src (tests pass a fake).
func NewWithSource(c common.Common, deps common.Deps, src Source) *Model {
	m := &Model{Common: c, deps: deps, src: src, keys: DefaultKeys(),
		filters: map[string][]string{}, marks: map[string]int{}}
	m.search = widget.NewSearchBox("bank", `all terms must match; OR, field:value, "a phrase", -excluded`)
	m.pane = viewport.New(0, 0)
	m.pane.MouseWheelEnabled = false
	m.list = newList()
	m.resetCache()
	m.Keys.Filter.SetHelp("f", "facets")
	m.Keys.Confirm.SetHelp("enter", "open")
	m.Keys.Next.SetHelp("]", "next link")
	m.Keys.Prev.SetHelp("[", "prev link")
	m.setWorthHelp()
	m.enableKeys()
	return m
}

// Init runs the first search; the bank's worth is read once its first
// page is in (pageLoaded), so the rows do not wait behind it.
func (m *Model) Init() tea.Cmd { return m.runSearch() }

// Capturing reports whether the search box or a form takes typed text.
func (m *Model) Capturing() bool {
	return m.search.Focused() || (m.overlay != nil && m.overlay.Capturing())
}

// SetSize lays the screen out again and re-wraps the detail.
func (m *Model) SetSize(w, h int) {
	m.Width, m.Height = w, h
	m.search.SetWidth(w)
	m.layout()
	m.renderDetail()
}

func (m *Model) resetCache() {
	m.recs, m.asked = map[string]*review.Record{}, map[string]bool{}
	m.gen++
}

// selected is the record id under the cursor, or "".
func (m *Model) selected() string {
	if h, ok := m.list.hit(m.list.cursor); ok {
		return h.ID
	}
	return ""
}

// ready reports whether the selected record's detail has loaded.
func (m *Model) ready() bool {
	return m.detail != nil && m.detail.Record != nil && m.detail.Record.ID == m.selected()
}

// Focus is the selected record once its detail has loaded (when the
// screen announces it too).
func (m *Model) Focus() (common.Focus, bool) {
	if !m.ready() {
		return common.Focus{}, false
	}
	return common.Focus{Kind: "record", ID: m.detail.Record.ID}, true
}

func (m *Model) enableKeys() {
	k := &m.Keys
	writable := m.deps.Service != nil && m.busy == ""
	active := writable && m.ready() && m.detail.Record.Status == review.Active
	k.Edit.SetEnabled(active)
	k.Narrow.SetEnabled(active)
	k.Delete.SetEnabled(active)
	k.Merge.SetEnabled(active && len(m.marked()) > 0)
	k.Undo.SetEnabled(writable)
	m.keys.Verify.SetEnabled(writable && m.ready() && len(m.detail.Record.Checks) > 0)
	m.keys.Rebaseline.SetEnabled(active && len(m.rebaselineable()) > 0)
	k.Note.SetEnabled(writable)
	m.keys.Retrieve.SetEnabled(m.deps.Service != nil)
	k.Next.SetEnabled(len(m.links) > 1)
	k.Prev.SetEnabled(len(m.links) > 1)
	k.Filter.SetEnabled(m.searched)
	m.keys.Worth.SetEnabled(m.src != nil && worthReader(m.deps) != nil)
}

// marked lists the rows marked for merging other than the selected one.
func (m *Model) marked() []string {
	var ids []string
	for id := range m.marks {
		if id != m.selected() {
			ids = append(ids, id)
		}
	}
	return ids
}

// seenVersions returns the version of each record in ids that the screen
// showed last: its row's record, or the one shown when it was marked when
// its row has not been loaded since. A write checks them (RecordRequest.Seen)
// so that a record changed behind the screen's back is not merged unread.
func (m *Model) seenVersions(ids []string) map[string]int {
	seen := map[string]int{}
	for _, id := range ids {
		if r := m.recs[id]; r != nil {
			seen[id] = r.Version
		} else if v := m.marks[id]; v != 0 {
			seen[id] = v
		}
	}
	return seen
}

// ShortHelp lists the keys that apply now.
func (m *Model) ShortHelp() []key.Binding {
	k := m.Keys
	switch {
	case m.overlay != nil:
		return m.overlay.Help(m.Keys)
	case m.search.Focused():
		return []key.Binding{k.Cancel, k.Confirm}
	}
	return []key.Binding{k.Search, k.Filter, m.keys.Clear, k.Confirm, k.NextPane, k.Edit, k.Narrow, m.keys.Mark, k.Merge,
		k.Delete, k.Undo, k.Note, m.keys.Verify, m.keys.Rebaseline, m.keys.Retrieve, m.keys.Worth}
}

// FullHelp lists every key of the screen for the help overlay.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.Keys
	// The form's field keys, named short so that the columns fit at 80.
	next, prev := k.NextField, k.PrevField
	next.SetHelp("tab", "next field")
	prev.SetHelp("⇧tab", "prev field")
	keep, rebase := k.Form.KeepExpect, m.keys.Rebaseline
	keep.SetHelp("ctrl+x", "keep expect")
	rebase.SetHelp("b", "re-baseline")
	return [][]key.Binding{
		{k.Search, k.Filter, m.keys.Clear, m.keys.Worth, m.keys.Retrieve, k.Confirm, k.NextPane, k.Next, k.Prev},
		{k.Edit, k.Narrow, m.keys.Mark, k.Merge, k.Delete, k.Undo, k.Note, m.keys.Verify, rebase, k.Cancel, next, prev},
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Form.Save, k.Form.NewLine, k.Form.MoveLine, keep, k.Form.Jump},
	}
}

// Title is the header: hit count and filters.
func (m *Model) Title() string {
	t := "Bank"
	if m.searched && m.searchErr != "" {
		t += " (bad query)"
	} else if m.searched {
		t += " " + m.count()
	} else {
		t += " …"
	}
	if f := filterText(m.filters); f != "" {
		t += " · " + f
	}
	t += m.worthTitle()
	if m.note != "" {
		t += " · note: " + common.PrintableLine(m.note)
	}
	return t
}
