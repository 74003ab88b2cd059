// Package queue is the review screen: the open proposals one at a time,
// with the trajectory that produced each, the candidate record as a diff
// against the records it touches, and its probe runs (re-runnable live)
// side by side, and the operator's verbs (accept, narrow, merge, delete,
// reject, edit, defer, undo). Every store write runs in a tea.Cmd and is
// shown as done only when it has committed. c runs the LLM curator on the
// proposal's trajectory; its calls stream into the probes pane and its
// proposals join the queue when it ends.
package queue

import (
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/widget"
)

// WideWidth is the width from which the three panes sit side by side;
// below it one pane is shown at a time and tab switches between them.
const WideWidth = 120

// The panes, in focus order.
const (
	paneTrajectory = iota
	paneCandidate
	paneProbes
	numPanes
)

var paneTitles = [numPanes]string{"Trajectory", "Candidate", "Probes"}

// Filter narrows the queue; empty fields match anything.
type Filter struct {
	Op       review.Op
	Env      string
	Category review.Category
}

// Model is the review screen.
type Model struct {
	note    string          // N: the note the next decision carries
	session map[string]bool // proposals decided on this screen this session, less undos
	undos   common.Undos    // the decisions made on this screen, which u undoes (undo.go)
	common.Common
	deps common.Deps

	all    []review.Proposal // the open queue as loaded
	envOf  map[string]string // the env of each proposal without a record (delete, skip): its targets' or trajectory's
	queue  []review.Proposal // all, filtered
	pos    int               // index into queue
	filter Filter
	loaded bool // the queue has loaded once
	seq    int  // request counter; every background result carries one

	queueSeq, probeSeq, searchSeq int    // seq of the latest request of each kind
	showing                       string // the proposal a ShowProposal's reload, in flight, goes to
	announce                      bool   // that reload announces the proposal as the focus

	cur     *proposalContext // the shown proposal's context; nil while loading
	curSeq  int              // seq of the context request in flight
	loadErr error

	probes []liveProbe // one per item of probeList, after p on this screen
	// probeX is how far the probes pane's tables are scrolled sideways
	// (←/→); probeWide the widest of them at the last render (probes.go).
	probeX, probeWide int
	spinner           spinner.Model
	busy              string // "deciding…" while a store write is in flight
	// settling holds the verbs back from a write's commit until the queue
	// reload it starts lands: until then the proposal on screen may be the
	// one just decided, and deciding it again would only conflict.
	settling   bool
	settleKeep string // the keep of that reload (settle)

	raw bool // show the raw trajectory steps
	// citedLine is the trajectory pane's line of the first cited raw step
	// (-1 when none), set when that pane is rendered.
	citedLine int
	// relatedLine is the candidate pane's line of its Related heading
	// (-1 when none), set when that pane is rendered: o scrolls there.
	relatedLine int
	// panes owns the three panes' focus, stacking and zoom (z) and their
	// scrollable bodies, each holding its content cut to its width.
	panes *widget.Panes

	claim claimState // the claim on the shown proposal and others' claims (claims.go)

	overlay overlay  // a form, picker or question over the panes; nil when none
	envs    []string // the environments the bank declares, for the forms (form.EnvNames); nil until read
	wraps   wrapCache

	list   *queueList      // L: every open proposal, with filters, marks and bulk verbs
	listOn bool            // the list shows instead of the panes
	open   map[string]bool // the ids of all, for the session's progress
}

// proposalContext is everything the panes show about one proposal, loaded
// in one Cmd.
type proposalContext struct {
	P        *review.Proposal
	Traj     *review.Trajectory // nil when the proposal names none or it is gone
	Targets  []*review.Record   // current version of each target; nil entries when missing
	Conflict *review.ConflictError
	Runs     []review.ProbeRun
	// Accepted is the record accepting the proposal as proposed writes
	// (review.AcceptedRecord: a merge's with its targets' content folded
	// in), which the forms start from; Lacks what the proposal's own
	// record drops of its targets, and accept keeps.
	Accepted   *review.Record
	Lacks      []review.Lack
	Related    []relatedRecord // active records near the candidate (related.go)
	RelatedErr error           // why they could not be read
}

// liveProbe is one live re-run of a recorded probe run or check, saved as
// a probe run on the proposal (run) unless saving failed (saveErr).
type liveProbe struct {
	done    bool
	now     probe.Result
	verdict probe.Verdict
	run     string    // the saved run's id
	at      time.Time // when it ran
	saveErr string
	earlier bool // read back from the store, not run on this screen now
}

// overlay is a form, picker or question that takes the keys while open.
type overlay = common.Overlay[*Model]

// New returns the review screen; Init loads the queue.
func New(c common.Common, deps common.Deps) common.Screen {
	m := &Model{Common: c, deps: deps}
	m.spinner = spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(c.Styles.Warn))
	m.panes = widget.NewPanes(c.Styles, WideWidth, paneTitles[:]...)
	m.list = newQueueList(c)
	m.enableKeys()
	return m
}

// Init loads the queue.
func (m *Model) Init() tea.Cmd { return m.reloadQueue("") }

// Capturing reports whether an open form takes typed text.
func (m *Model) Capturing() bool {
	if m.overlay != nil {
		return m.overlay.Capturing()
	}
	return m.listOn && m.list.Capturing()
}

// SetSize lays the panes out again and re-wraps their content.
func (m *Model) SetSize(w, h int) {
	m.Width, m.Height = w, h
	if m.overlay != nil {
		m.overlay.SetWidth(m.overlayInner())
	}
	m.list.SetSize(w, m.listHeight())
	m.layout()
	m.render()
}

// overlayInner is the width inside an overlay's frame.
func (m *Model) overlayInner() int {
	return max(m.Width-m.Styles.Overlay.GetHorizontalFrameSize(), 1)
}

// current is the proposal under the cursor, or nil when the queue is empty.
func (m *Model) current() *review.Proposal {
	if m.pos < 0 || m.pos >= len(m.queue) {
		return nil
	}
	return &m.queue[m.pos]
}

// Focus is the shown proposal once its context has loaded (when the
// screen announces it too).
func (m *Model) Focus() (common.Focus, bool) {
	if !m.ready() {
		return common.Focus{}, false
	}
	return common.Focus{Kind: "proposal", ID: m.cur.P.ID}, true
}

// ready reports whether the shown proposal's context has loaded.
func (m *Model) ready() bool {
	p := m.current()
	return p != nil && m.cur != nil && m.cur.P.ID == p.ID
}

// enableKeys enables exactly the verbs that apply to the shown proposal.
// hasRecord reports whether the shown proposal has a record that narrow,
// edit and merge can work on (m.ready()).
func (m *Model) hasRecord() bool {
	op := m.cur.P.Op
	return m.cur.P.Record != nil && op != review.OpSkip && op != review.OpDelete
}

func (m *Model) enableKeys() {
	k := &m.Keys
	ready := m.ready() && m.busy == "" && !m.settling
	var hasRecord, hasTargets, hasRuns, hasSteps bool
	if ready {
		hasRecord = m.hasRecord()
		hasTargets = len(m.cur.P.Targets) > 0
		hasRuns = len(m.probeList()) > 0 // runs, or checks of the record
		hasSteps = m.cur.Traj != nil && len(m.cur.Traj.Steps) > 0
	}
	// The verbs that write the record wait for p's live runs: the latest
	// of each check is its baseline (review/live.go).
	writes := ready && !m.probing()
	k.Accept.SetEnabled(writes)
	k.AcceptNote.SetEnabled(writes)
	k.Reject.SetEnabled(ready)
	k.RejectNote.SetEnabled(ready)
	k.Defer.SetEnabled(ready && m.cur.P.Status != review.Deferred)
	k.Narrow.SetEnabled(writes && hasRecord)
	k.Edit.SetEnabled(writes && hasRecord)
	k.Merge.SetEnabled(writes && hasRecord)
	k.Delete.SetEnabled(ready && hasTargets)
	k.Probe.SetEnabled(ready && hasRuns)
	onProbes := ready && m.panes.Focus() == paneProbes
	k.Probes.Full.SetEnabled(onProbes && hasRuns)
	k.Probes.Sideways.SetEnabled(onProbes && m.probeWide > m.panes.Body(paneProbes).Width())
	k.Raw.SetEnabled(ready && hasSteps)
	k.Related.SetEnabled(ready && (len(m.cur.Related) > 0 || m.cur.RelatedErr != nil))
	k.Undo.SetEnabled(m.busy == "")
	k.Next.SetEnabled(m.pos < len(m.queue)-1)
	k.Prev.SetEnabled(m.pos > 0)
	k.Filter.SetEnabled(m.loaded)
	k.NextPane.SetEnabled(len(m.queue) > 0) // no panes on an empty queue
	p := m.current()
	k.Curate.SetEnabled(m.deps.Curator != nil && p != nil && p.Trajectory != "")
	k.Queue.List.SetEnabled(m.loaded)
	m.list.Keys.Queue.Reject.SetEnabled(m.busy == "" && !m.settling)
	m.list.Keys.Queue.Defer.SetEnabled(m.busy == "" && !m.settling)
}

// ShortHelp lists the keys that apply now.
func (m *Model) ShortHelp() []key.Binding {
	k := m.Keys
	if m.overlay != nil {
		return m.overlay.Help(k)
	}
	if m.listOn {
		return m.list.help()
	}
	return []key.Binding{k.Accept, k.Narrow, k.Merge, k.Delete, k.Reject, k.Edit, k.Defer, k.Undo, k.Note,
		k.Probe, k.Probes.Full, k.Probes.Sideways, k.Curate, k.Raw, k.Related, k.AcceptNote, k.RejectNote, k.NextPane, k.Zoom, k.Next, k.Prev, k.Filter, k.Queue.List}
}

// FullHelp lists every key of the screen for the help overlay.
func (m *Model) FullHelp() [][]key.Binding {
	k := m.Keys
	if m.listOn && m.overlay == nil {
		return m.list.fullHelp()
	}
	return [][]key.Binding{
		{k.Accept, k.Narrow, k.Merge, k.Delete, k.Reject, k.Edit, k.Defer, k.Undo, k.Note, k.Filter, k.Queue.List},
		{k.AcceptNote, k.RejectNote, k.Probe, k.Curate, k.Raw, k.Related, k.NextPane, k.Zoom, k.Next, k.Prev},
		// Moving in a pane; the probes pane's sideways scroll and full text.
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Probes.Sideways, k.Probes.Full},
		{k.Toggle, k.Confirm, k.Cancel, k.NextField, k.PrevField, k.Form.Jump, k.Form.Save, k.Form.NewLine, k.Form.MoveLine, k.Form.KeepExpect},
	}
}
