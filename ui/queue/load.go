package queue

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/form"
)

// Background work. Each Cmd copies what it needs before it returns and
// never reads the model from its goroutine; each result carries the seq of
// the request (and the proposal id) so Update can drop stale ones.

type queueLoaded struct {
	seq   int
	props []review.Proposal
	keep  string // the proposal to show, when it is still open
	err   error
	now   time.Time         // the store's clock at the load (the list's ages)
	envs  map[string]string // proposalEnvs of props

	claims []review.Claim // live claims, read with the queue (claims.go)
}

type contextLoaded struct {
	seq     int
	pid     string
	ctx     *proposalContext
	err     error
	refresh bool // a reload of the shown proposal, not a new one
}

type probeDone struct {
	pid      string
	seq, idx int
	run      review.ProbeRun // the live run, with its id when saved
	err      error           // why it was not saved
}

type decided struct {
	pid  string
	verb review.Verb
	dec  *review.Decision
	err  error
	req  review.DecideRequest // what was asked (flagask.go asks again with AckFindings)
}

type undone struct {
	id  string // the decision asked to undo
	dec *review.Decision
	err error
}

type searched struct {
	pid  string
	seq  int
	recs []review.Record
	err  error
}

func (m *Model) nextSeq() int { m.seq++; return m.seq }

// reloadQueue reads the open queue; keep names a proposal to show if open.
func (m *Model) reloadQueue(keep string) tea.Cmd {
	m.queueSeq = m.nextSeq()
	seq, svc, cs, known := m.queueSeq, m.deps.Service, m.claimStore(), maps.Clone(m.envOf)
	return func() tea.Msg {
		ps, err := svc.Queue()
		return queueLoaded{seq: seq, props: ps, claims: readClaims(cs), keep: keep, err: err, now: svc.Now(), envs: proposalEnvs(svc, ps, known)}
	}
}

// proposalEnvs finds the environment of each proposal that has no record
// to say it, so that the filters find a delete or skip by env: the env
// of its first target that has one, else its trajectory's. known holds
// those found at an earlier load (a proposal's targets and trajectory do
// not change); one that cannot be read has none.
func proposalEnvs(svc *app.Service, ps []review.Proposal, known map[string]string) map[string]string {
	out := map[string]string{}
	for _, p := range ps {
		if p.Record != nil && p.Record.Scope.Env != "" {
			continue
		}
		if env, ok := known[p.ID]; ok {
			out[p.ID] = env
			continue
		}
		env := ""
		for _, t := range p.Targets {
			if r, err := svc.Record(t.ID); err == nil && r.Scope.Env != "" {
				env = r.Scope.Env
				break
			}
		}
		if env == "" && p.Trajectory != "" {
			if t, err := svc.Trajectory(p.Trajectory); err == nil {
				env = t.Env
			}
		}
		out[p.ID] = env
	}
	return out
}

// loadContext reads everything the panes show about proposal id.
func (m *Model) loadContext(id string) tea.Cmd { return m.readContextCmd(id, false) }

// refreshContext reads the shown proposal's context again (evidence was
// attached to it), keeping its live re-runs and scroll positions.
func (m *Model) refreshContext() tea.Cmd { return m.readContextCmd(m.cur.P.ID, true) }

func (m *Model) readContextCmd(id string, refresh bool) tea.Cmd {
	m.curSeq = m.nextSeq()
	seq, svc := m.curSeq, m.deps.Service
	return func() tea.Msg {
		c, err := readContext(svc, id)
		return contextLoaded{pid: id, seq: seq, ctx: c, err: err, refresh: refresh}
	}
}

func readContext(store *app.Service, id string) (*proposalContext, error) {
	p, err := store.Proposal(id)
	if err != nil {
		return nil, fmt.Errorf("load proposal %s: %w", id, err)
	}
	screenNow(store, p) // findings.go
	c := &proposalContext{P: p}
	if p.Trajectory != "" {
		if t, err := store.Trajectory(p.Trajectory); err == nil {
			c.Traj = t
		} else if !errors.Is(err, review.ErrNotFound) {
			return nil, fmt.Errorf("load trajectory %s of %s: %w", p.Trajectory, id, err)
		}
	}
	for _, t := range p.Targets {
		r, err := store.Record(t.ID)
		if err != nil && !errors.Is(err, review.ErrNotFound) {
			return nil, fmt.Errorf("load target %s of %s: %w", t.ID, id, err)
		}
		c.Targets = append(c.Targets, r)
	}
	c.Accepted = review.AcceptedRecord(p, c.Targets)
	if p.Op == review.OpMerge && p.Record != nil {
		var srcs []review.Record
		for _, t := range c.Targets {
			if t != nil {
				srcs = append(srcs, *t)
			}
		}
		c.Lacks = review.Lacks(*p.Record, srcs...)
	}
	if c.Conflict, err = store.Conflicts(p); err != nil {
		return nil, fmt.Errorf("check %s for conflicts: %w", id, err)
	}
	if c.Runs, err = store.ProbeRunsFor("proposal", id); err != nil {
		return nil, fmt.Errorf("load probe runs of %s: %w", id, err)
	}
	c.Related, c.RelatedErr = findRelated(store, p) // shown in the pane; the proposal still loads
	return c, nil
}

// runProbes runs every probe run of the shown proposal and every check of
// its record live, one Cmd each; the service saves each result as a probe
// run on the proposal, so it outlives a defer and is the check's baseline
// when the proposal is accepted.
func (m *Model) runProbes() tea.Cmd {
	m.probeSeq = m.nextSeq()
	items := m.probeList()
	m.probes = make([]liveProbe, len(items))
	cmds := []tea.Cmd{m.spinner.Tick}
	for i, it := range items {
		seq, pid, svc, op, deps := m.probeSeq, m.cur.P.ID, m.deps.Service, m.deps.Operator, m.deps
		cmds = append(cmds, func() tea.Msg {
			run, err := svc.RunLive(context.Background(), pid, it, op)
			if err != nil {
				deps.Logf("live run of %s: %v", pid, err)
			}
			return probeDone{pid: pid, seq: seq, idx: i, run: run, err: err}
		})
	}
	return tea.Batch(cmds...)
}

// decide commits req (the service catches the index up).
func (m *Model) decide(req review.DecideRequest) tea.Cmd {
	req.Operator = m.deps.Operator
	form.TakeNote(&req.Note, &m.note) // N's note rides on this verb
	m.busy = fmt.Sprintf("%s %s…", verbDoing[req.Verb], req.Proposal)
	svc, deps := m.deps.Service, m.deps
	return func() tea.Msg {
		dec, err := svc.Decide(context.Background(), req)
		if err == nil {
			deps.Logf("decided %s: %s %s", req.Proposal, req.Verb, dec.ID)
		} else {
			deps.Logf("decide %s %s: %v", req.Verb, req.Proposal, err)
		}
		return decided{pid: req.Proposal, verb: req.Verb, dec: dec, err: err, req: req}
	}
}

// mergeSearchSize caps the records a merge search suggests.
const mergeSearchSize = 12

// searchRecords finds active records for the merge picker
// (app.Service.FindActive): the index's hits for query (in env only, when
// not ""), without the excluded ids.
func (m *Model) searchRecords(pid, query, env string, exclude []string) tea.Cmd {
	m.searchSeq = m.nextSeq()
	seq, svc := m.searchSeq, m.deps.Service
	return func() tea.Msg {
		recs, err := svc.FindActive(query, env, exclude, mergeSearchSize)
		return searched{pid: pid, seq: seq, recs: recs, err: err}
	}
}

// lemmaQuery turns a lemma into a query string: its words, without the
// characters bleve's query syntax gives meaning to.
func lemmaQuery(lemma string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(`+-=&|><!(){}[]^"~*?:\/`, r) {
			return ' '
		}
		return r
	}, lemma)
}

var verbDoing = map[review.Verb]string{
	review.Accept: "accepting", review.Narrow: "narrowing", review.Merge: "merging",
	review.Delete: "deleting", review.Reject: "rejecting", review.Edit: "editing",
	review.Defer: "deferring",
}

var verbDone = map[review.Verb]string{
	review.Accept: "accepted", review.Narrow: "narrowed", review.Merge: "merged",
	review.Delete: "deleted", review.Reject: "rejected", review.Edit: "edited",
	review.Defer: "deferred",
}

// summary says what a committed decision did, for the footer:
// "accepted prop_x → mem_y v2".
func summary(d *review.Decision) string {
	verb := verbDone[d.Verb]
	if verb == "" {
		verb = string(d.Verb)
	}
	return common.DecisionSummary(verb+" "+d.Proposal, d)
}
