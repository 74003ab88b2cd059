package ui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
)

// H, on every screen that is not taking typed text: run hygiene
// (app.Hygiene: near-duplicates, contradictions, stale and unused
// records) in the background. While it runs the footer's status line
// shows a spinner; when it ends the footer says how many proposals it
// queued, the screens reload (common.QueueChanged) and the review screen
// shows the first new proposal, its rationale naming the evidence.

// hygieneRun is the run in flight; the root holds at most one.
type hygieneRun struct {
	seq   int
	frame int
	start time.Time
}

// hygieneDone is the end of run seq.
type hygieneDone struct {
	seq   int
	rep   *app.HygieneReport
	saved []review.Proposal
	err   error
}

// hygieneTick moves run seq's spinner.
type hygieneTick struct{ seq int }

// ownProposals are the ids of the proposals this program's hygiene runs
// queued. The run's Cmd adds them as soon as they commit and the change
// watcher's poll (another goroutine) reads them, so that the footer says
// "hygiene: 7 proposals queued", not also "7 new proposals" as if another
// process had queued them. While a run is in flight its proposals are
// committed before their ids reach add, so the poll also counts a
// hygiene-sourced proposal as this program's while one runs (running).
//
// A curator run's proposals are this program's too: curator says which
// runs this program started.
type ownProposals struct {
	mu      sync.Mutex
	ids     map[string]bool
	running int
	curator *common.Curator
}

// begin and end bracket a run of this program's hygiene.
func (o *ownProposals) begin() { o.mu.Lock(); o.running++; o.mu.Unlock() }
func (o *ownProposals) end()   { o.mu.Lock(); o.running--; o.mu.Unlock() }

// mine reports whether p was queued by this program: by its hygiene (its
// id was added, or it is hygiene's and a run of this program is in
// flight) or by a curator run it started.
func (o *ownProposals) mine(p *review.Proposal) bool {
	if o.curator.Started(p.CuratorRun) {
		return true
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.ids[p.ID] || o.running > 0 && p.Source == "hygiene"
}

func (o *ownProposals) add(ps []review.Proposal) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ids == nil {
		o.ids = map[string]bool{}
	}
	for _, p := range ps {
		o.ids[p.ID] = true
	}
}

func (o *ownProposals) has(id string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.ids[id]
}

// hygieneSpinner is the spinner the footer shows while hygiene runs.
var hygieneSpinner = spinner.MiniDot

// startHygiene starts a run, or says why not.
func (m *Model) startHygiene() tea.Cmd {
	svc := m.deps.Service
	switch {
	case svc == nil:
		return common.NotifyErr("hygiene needs the bank's service; this program was started without one")
	case m.hygiene != nil:
		return common.Notify("hygiene is already running")
	}
	m.hygieneSeq++
	seq := m.hygieneSeq
	m.hygiene = &hygieneRun{seq: seq, start: time.Now()}
	m.status = common.Status{} // the footer shows the run's progress
	own := &m.own
	own.begin()
	run := func() tea.Msg {
		defer own.end()
		// Incremental: the service compares only the records changed since
		// the last run when it can (the CLI's hygiene runs in full).
		rep, saved, err := svc.Hygiene(context.Background(), app.HygieneOptions{Incremental: true})
		own.add(saved)
		return hygieneDone{seq: seq, rep: rep, saved: saved, err: err}
	}
	return tea.Batch(run, common.Heartbeat(hygieneSpinner.FPS, hygieneTick{seq}))
}

// updateHygiene handles the run's messages; ok is false for any other.
func (m *Model) updateHygiene(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case hygieneTick:
		if m.hygiene == nil || m.hygiene.seq != msg.seq {
			return nil, true // a stale frame
		}
		m.hygiene.frame++
		return common.Heartbeat(hygieneSpinner.FPS, msg), true
	case hygieneDone:
		if m.hygiene == nil || m.hygiene.seq != msg.seq {
			return nil, true
		}
		m.hygiene = nil
		if msg.err != nil {
			return m.setStatus(common.Status{Text: "hygiene failed, nothing queued: " + msg.err.Error(), Err: true}), true
		}
		cmds := []tea.Cmd{m.setStatus(common.Status{Text: hygieneSummary(msg.rep, msg.saved)})}
		if len(msg.saved) == 0 {
			return tea.Batch(cmds...), true
		}
		cmds = append(cmds, m.broadcast(common.QueueChanged{RunID: msg.rep.RunID}),
			m.navigate(common.ScreenReview, common.ShowProposal{ID: msg.saved[0].ID}))
		return tea.Batch(cmds...), true
	}
	return nil, false
}

// hygieneProgress is the status line while a run is in flight.
func (m *Model) hygieneProgress() string {
	fr := hygieneSpinner.Frames
	return fmt.Sprintf("%s hygiene: looking for duplicate, contradicting, stale and unused records… %.0fs",
		fr[m.hygiene.frame%len(fr)], time.Since(m.hygiene.start).Seconds())
}

// hygieneSummary says what a run queued: "hygiene: 7 proposals queued (2
// merge, 5 delete)", or that it found nothing new.
func hygieneSummary(rep *app.HygieneReport, saved []review.Proposal) string {
	if rep != nil && rep.Incremental {
		return strings.Replace(hygieneFound(rep, saved), "hygiene:", fmt.Sprintf("hygiene of %d changed record%s:", rep.Changed, plural(rep.Changed)), 1)
	}
	return hygieneFound(rep, saved)
}

func hygieneFound(rep *app.HygieneReport, saved []review.Proposal) string {
	if len(saved) == 0 {
		open := 0
		if rep != nil {
			for _, f := range rep.Findings {
				if f.Open != "" {
					open++
				}
			}
		}
		if open > 0 {
			return fmt.Sprintf("hygiene: nothing new (%d finding%s already in the queue)", open, plural(open))
		}
		return "hygiene: nothing new"
	}
	byOp := map[review.Op]int{}
	var ops []review.Op
	for _, p := range saved {
		if byOp[p.Op] == 0 {
			ops = append(ops, p.Op)
		}
		byOp[p.Op]++
	}
	var parts []string
	for _, op := range ops {
		parts = append(parts, fmt.Sprintf("%d %s", byOp[op], op))
	}
	return fmt.Sprintf("hygiene: %d proposal%s queued (%s)", len(saved), plural(len(saved)), strings.Join(parts, ", "))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
