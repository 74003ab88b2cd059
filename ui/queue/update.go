package queue

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/form"
)

// Update handles keys, the mouse wheel and background results.
func (m *Model) Update(msg tea.Msg) (common.Screen, tea.Cmd) {
	cmd := m.update(msg)
	m.enableKeys()
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	if _, ok := msg.(common.CuratorProgress); ok {
		if m.showsCurator() {
			m.renderPane(paneProbes)
		}
		return nil
	}
	if cmd, ok := m.updateClaims(msg); ok {
		return cmd
	}
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if m.overlay != nil {
			var cmd tea.Cmd
			m.overlay, cmd = m.overlay.Update(m, msg)
			return cmd
		}
		if m.listOn {
			return m.listKey(msg)
		}
		return m.handleKey(msg)
	case tea.MouseMsg:
		return m.handleMouse(msg)
	case queueLoaded:
		return m.queueLoaded(msg)
	case form.EnvNames:
		m.envs = msg.Names
		if f, ok := m.overlay.(interface{ SetEnvs([]string) }); ok {
			f.SetEnvs(msg.Names)
		}
	case contextLoaded:
		if msg.seq != m.curSeq || m.current() == nil || m.current().ID != msg.pid {
			return nil // the operator has moved on
		}
		m.loadErr = msg.err
		refresh := msg.refresh && m.ready() && msg.ctx != nil
		m.cur = msg.ctx
		if !refresh {
			m.probes = nil
			m.probeX = 0
			// Stacked, a proposal without a trajectory (hygiene's, an
			// import's) opens on its candidate, not on an empty pane.
			if msg.ctx != nil && msg.ctx.Traj == nil && m.panes.Focus() == paneTrajectory {
				m.panes.SetFocus(paneCandidate)
			}
		}
		m.render()
		if !refresh { // a refresh keeps the live re-runs and where each pane was
			for i := range m.panes.Len() {
				m.panes.Body(i).GotoTop()
			}
		}
		// A refresh of the proposal shown (a reload for a change elsewhere)
		// does not announce it again: the operator may be on another
		// screen, focused on a record there (the root announces this
		// screen's focus when it is shown again).
		// A ShowProposal's reload does: the operator asked to look at it.
		if msg.ctx != nil && (!refresh || m.announce) {
			m.announce = false
			return common.FocusOn("proposal", msg.pid)
		}
	case probeDone:
		if msg.seq != m.probeSeq || !m.ready() || m.cur.P.ID != msg.pid || msg.idx >= len(m.probes) {
			return nil
		}
		items := m.probeList()
		if msg.idx >= len(items) {
			return nil
		}
		lp := liveProbe{done: true, now: msg.run.Result, verdict: probe.Compare(items[msg.idx].Expect, msg.run.Result),
			run: msg.run.ID, at: msg.run.At}
		m.probes[msg.idx] = lp
		m.renderPane(paneProbes)
		if o, ok := m.overlay.(*probeOutput); ok {
			o.width = 0 // the full text shows the live result too
		}
		if msg.err != nil {
			m.probes[msg.idx].saveErr = msg.err.Error()
			return common.NotifyErr("the live result was shown but not saved: " + msg.err.Error())
		}
	case spinner.TickMsg:
		if !m.probing() {
			return nil
		}
		var next tea.Cmd
		if m.spinner, next = m.spinner.Update(msg); next == nil {
			return nil // a stale frame
		}
		m.renderPane(paneProbes)
		return common.Heartbeat(m.spinner.Spinner.FPS, m.spinner.Tick())
	case decided:
		return m.decided(msg)
	case bulkDecided:
		return m.bulkDone(msg)
	case undoAsked:
		return m.undoAsked(msg)
	case undone:
		m.busy = ""
		if msg.err != nil {
			if strings.Contains(msg.err.Error(), "already undone") {
				m.undos.Drop(msg.id) // undone elsewhere: u goes on to the one before
			}
			return common.NotifyErr(common.UndoFailed(msg.err))
		}
		m.undos.Drop(msg.dec.Undoes)
		delete(m.session, msg.dec.Proposal)
		text := "undid " + msg.dec.Undoes
		if msg.dec.Proposal != "" {
			text += ": " + msg.dec.Proposal + " is open again"
		}
		// the reload shows the reopened proposal
		return tea.Batch(m.settle(msg.dec.Proposal), common.Notify(text), common.Changed(changedFrom))
	case searched:
		if mp, ok := m.overlay.(*mergePicker); ok && msg.seq == m.searchSeq && mp.pid == msg.pid {
			mp.found(msg)
		}
	case common.ShowProposal:
		m.showing, m.announce = msg.ID, true
		return m.reloadQueue(msg.ID)
	case common.EvidenceAttached:
		if msg.Target.Kind == "proposal" && m.ready() && m.cur.P.ID == msg.Target.ID {
			return m.refreshContext() // the probes pane lists the attached run
		}
	case common.BankChanged:
		if msg.From == changedFrom {
			return nil
		}
		// another screen's write (an undo there may reopen a proposal)
		return m.reloadQueue(m.changeKeep())
	case common.QueueChanged:
		return m.reloadQueue(m.changeKeep())
	}
	return nil
}

// keepOnReload is the proposal a reload for a change elsewhere stays on:
// the one a ShowProposal asked for while its reload is still in flight
// (the new reload replaces that one), else the one shown.
func (m *Model) keepOnReload() string {
	if m.showing != "" {
		return m.showing
	}
	if p := m.current(); p != nil {
		return p.ID
	}
	return ""
}

// settle reloads the queue after this screen's write, showing keep when
// it lands; until then the verbs are held back (settling), and a reload
// for a change elsewhere that replaces this one keeps its keep.
func (m *Model) settle(keep string) tea.Cmd {
	m.settling, m.settleKeep = true, keep
	return m.reloadQueue(keep)
}

// changeKeep is what a reload for a change elsewhere stays on: where the
// operator is when it lands, or, while this screen's own reload after a
// write is in flight (the new reload replaces it), what that one would
// have shown — the proposal on screen then is the one just decided, and
// staying on it would take the operator back to it at the queue's end.
func (m *Model) changeKeep() string {
	if m.settling {
		return m.settleKeep
	}
	return keepCurrent
}

// keepCurrent asks a reload to stay on the proposal shown when it lands
// (keepOnReload then): the operator may move on while it runs, and a keep
// read when it began would take them back.
const keepCurrent = "\x00current"

// changedFrom names this screen in the common.BankChanged it sends.
const changedFrom = "review"

// probing reports whether a live re-run is still in flight.
func (m *Model) probing() bool {
	for _, p := range m.probes {
		if !p.done {
			return true
		}
	}
	return false
}

func (m *Model) queueLoaded(msg queueLoaded) tea.Cmd {
	if msg.seq != m.queueSeq {
		return nil
	}
	keep := msg.keep // "" after a decision: stay at the same position
	if keep == keepCurrent {
		keep = m.keepOnReload() // where the operator is now, not when the reload began
	}
	m.loaded = true
	m.settling = false
	m.showing = ""
	if msg.err != nil {
		m.loadErr = msg.err
		return common.NotifyErr("could not read the queue: " + msg.err.Error())
	}
	m.loadErr = nil
	m.all = msg.props
	m.envOf = msg.envs
	m.open = make(map[string]bool, len(m.all))
	for _, p := range m.all {
		m.open[p.ID] = true
	}
	m.setClaims(msg.claims)
	m.list.SetRows(m.all, m.claim.holders, m.envOf, msg.now)
	m.applyFilter()
	if keep != "" && !slices.ContainsFunc(m.queue, func(p review.Proposal) bool { return p.ID == keep }) &&
		slices.ContainsFunc(m.all, func(p review.Proposal) bool { return p.ID == keep }) {
		m.filter = Filter{} // asked for a proposal the filter hides: show the whole queue
		m.applyFilter()
	}
	for i, p := range m.queue {
		if p.ID == keep {
			m.pos = i
		}
	}
	return m.show()
}

// applyFilter rebuilds queue from all and clamps the position.
func (m *Model) applyFilter() {
	m.queue = m.queue[:0:0]
	m.resetClaimCount()
	for _, p := range m.all {
		if m.filter.matches(&p, m.envOf) && !m.claimedByOther(&p) {
			m.queue = append(m.queue, p)
		}
	}
	m.pos = min(max(m.pos, 0), max(len(m.queue)-1, 0))
}

// matches reports whether p passes the filter; envs holds the env of
// the proposals that have no record (proposalEnvs).
func (f Filter) matches(p *review.Proposal, envs map[string]string) bool {
	if f.Op != "" && p.Op != f.Op {
		return false
	}
	env, cat := proposalEnv(p, envs), review.Category("")
	if p.Record != nil {
		cat = p.Record.Category
	}
	return (f.Env == "" || env == f.Env) && (f.Category == "" || cat == f.Category)
}

// proposalEnv is the environment p is about: its record's, else (a
// delete or skip) the one its targets or trajectory have, as envs holds it.
func proposalEnv(p *review.Proposal, envs map[string]string) string {
	if p.Record != nil && p.Record.Scope.Env != "" {
		return p.Record.Scope.Env
	}
	return envs[p.ID]
}

// show starts loading the proposal under the cursor, dropping the old one.
// A reload that stays on the proposal shown (a change elsewhere, or its own
// live runs being saved) reads it again and keeps its live re-runs.
func (m *Model) show() tea.Cmd {
	p := m.current()
	claim := m.followClaim()
	if p != nil && m.ready() {
		return tea.Batch(m.refreshContext(), claim)
	}
	m.probes = nil
	if p == nil {
		m.cur = nil
		m.render()
		return claim
	}
	if m.cur != nil && m.cur.P.ID != p.ID {
		m.cur = nil
		m.raw = false
	}
	m.render()
	return tea.Batch(m.loadContext(p.ID), claim)
}

func (m *Model) decided(msg decided) tea.Cmd {
	if cmd, ok := m.flaggedRefused(msg); ok {
		return cmd
	}
	m.busy = ""
	var ce *review.ConflictError
	switch {
	case errors.As(msg.err, &ce):
		return tea.Batch(m.settle(msg.pid),
			common.NotifyErr("nothing applied — "+ce.Error()+". Reloaded: review it again."))
	case msg.err != nil:
		return common.NotifyErr("nothing applied — " + string(msg.verb) + " " + msg.pid + " failed: " + msg.err.Error())
	}
	keep := "" // the decided proposal leaves the queue: stay at its position
	if p := m.current(); p != nil && p.ID != msg.pid {
		keep = keepCurrent // the operator moved on while it committed: stay where they are
	}
	if m.session == nil {
		m.session = map[string]bool{}
	}
	m.session[msg.pid] = true
	m.undos.Push(msg.dec.ID)
	// until the reload, the decided proposal may still be shown
	return tea.Batch(m.settle(keep), common.Notify(summary(msg.dec)+acked(msg.req)), common.Changed(changedFrom))
}

func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := m.Keys
	if handled, resized := m.panes.HandleKey(k, msg); handled { // scroll, tab, z
		if resized {
			m.render()
		}
		return nil
	}
	switch {
	case key.Matches(msg, k.Next):
		m.pos++
		return m.show()
	case key.Matches(msg, k.Prev):
		m.pos--
		return m.show()
	case key.Matches(msg, k.Raw):
		m.raw = !m.raw
		if !m.panes.SideBySide() {
			m.panes.SetFocus(paneTrajectory) // stacked: show the pane the steps toggled in
		}
		m.renderPane(paneTrajectory)
		m.scrollToCited()
	case key.Matches(msg, k.Related):
		m.panes.SetFocus(paneCandidate)
		if m.relatedLine >= 0 {
			m.panes.Body(paneCandidate).SetYOffset(m.relatedLine)
		}
	case key.Matches(msg, k.Probe):
		return m.runProbes()
	case key.Matches(msg, k.Probes.Sideways):
		m.scrollSideways(key.Matches(msg, k.Left))
	case key.Matches(msg, k.Probes.Full):
		m.overlay = newProbeOutput(m)
	case key.Matches(msg, k.Undo):
		return m.undo()
	case key.Matches(msg, k.Filter):
		m.overlay = newFilterPicker(m)
	case key.Matches(msg, k.Queue.List):
		m.toggleList()
	case key.Matches(msg, k.Note):
		m.overlay = newNoteForm(m)
	case key.Matches(msg, k.Curate):
		return m.curate()
	}
	if !m.ready() || m.busy != "" || m.settling {
		return m.heldBack(msg)
	}
	id := m.cur.P.ID
	switch {
	case key.Matches(msg, k.AcceptNote):
		m.overlay = newVerbNote(m, review.Accept)
	case key.Matches(msg, k.RejectNote):
		m.overlay = newVerbNote(m, review.Reject)
	case key.Matches(msg, k.Accept) && m.cur.P.Op == review.OpDelete:
		m.overlay = &confirmDelete{pid: id, ids: m.cur.P.TargetIDs(), verb: review.Accept}
	case key.Matches(msg, k.Accept):
		return m.decide(review.DecideRequest{Proposal: id, Verb: review.Accept})
	case key.Matches(msg, k.Reject):
		return m.decide(review.DecideRequest{Proposal: id, Verb: review.Reject})
	case key.Matches(msg, k.Defer):
		return m.decide(review.DecideRequest{Proposal: id, Verb: review.Defer})
	case key.Matches(msg, k.Delete):
		m.overlay = &confirmDelete{pid: id, ids: m.cur.P.TargetIDs(), verb: review.Delete}
	case key.Matches(msg, k.Narrow):
		m.overlay = newNarrowForm(m)
		return form.LoadEnvNames(m.deps.Service)
	case key.Matches(msg, k.Edit):
		m.overlay = newEditForm(m)
		return form.LoadEnvNames(m.deps.Service)
	case key.Matches(msg, k.Merge):
		mp := newMergePicker(m)
		m.overlay = mp
		return m.searchRecords(mp.pid, mp.seedQuery, mp.base.Scope.Env, mp.exclude) // suggestions: the candidate's env
	}
	return m.heldBack(msg) // a verb enableKeys turned off
}

// scrollToCited scrolls the trajectory pane to the first cited raw step.
func (m *Model) scrollToCited() {
	vp := m.panes.Body(paneTrajectory)
	if !m.raw || m.citedLine < 0 {
		vp.GotoTop()
		return
	}
	vp.SetYOffset(max(m.citedLine-1, 0))
}

// handleMouse scrolls a pane with the wheel. Side by side, the pane under
// the pointer takes the focus first.
func (m *Model) handleMouse(msg tea.MouseMsg) tea.Cmd {
	if m.overlay == nil && !m.listOn {
		m.panes.HandleWheel(msg)
	}
	return nil
}

// heldBack says in the footer why a verb key did nothing: the proposal
// shown is still loading, a write is in flight, the queue is reloading
// after one, or (a verb that writes the record) its live re-runs are still
// running. A verb pressed then is not applied (the operator may not have
// seen what it would decide), but it is never dropped without a word. A
// verb that does not apply to the proposal (narrow on a delete) says
// nothing: the footer's help leaves it out. The bindings are matched by
// their keys, as enableKeys has turned them off.
func (m *Model) heldBack(msg tea.KeyMsg) tea.Cmd {
	k := m.Keys
	p := m.current()
	if p == nil {
		return nil
	}
	verbs := []struct {
		b             key.Binding
		writes, onRec bool // waits for the live runs; needs a record (hasRecord)
	}{{k.Accept, true, false}, {k.AcceptNote, true, false}, {k.Reject, false, false}, {k.RejectNote, false, false}, {k.Defer, false, false}, {k.Delete, false, false},
		{k.Narrow, true, true}, {k.Edit, true, true}, {k.Merge, true, true}}
	for _, v := range verbs {
		if !slices.Contains(v.b.Keys(), msg.String()) {
			continue
		}
		var why string
		switch {
		case !m.ready():
			why = p.ID + " is still loading"
		case m.busy != "":
			why = m.busy
		case m.settling:
			why = "the queue is reloading after the last decision"
		case v.writes && m.probing() && (!v.onRec || m.hasRecord()):
			why = "its live re-runs are still running"
		default:
			return nil
		}
		return common.Notify(fmt.Sprintf("%s not applied: %s; press it again", v.b.Help().Desc, why))
	}
	return nil
}
