package common

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review/app"
)

// Running the LLM curator from the screens (c on the review and
// trajectories screens). One *Curator is shared through Deps, so there is
// one run at a time for the whole program and every screen, including one
// built after the run started, shows the same run.
//
// The run itself is a goroutine that only sends on a channel; the model
// receives its events through a Cmd that waits for the next one and is
// issued again after each. Every message carries the run id. The root owns
// the run: it alone passes messages to Update, keeps the Cmd that waits for
// the next event, and broadcasts what changed to every screen as
// CuratorProgress. Cancel (the root calls it when the program quits) ends
// the run's HTTP call.

// Curator runs curator runs for the screens and holds the latest one. Its
// state changes only in Start and Update, i.e. in the screens' Update; the
// run's goroutine never touches it.
type Curator struct {
	settings app.CuratorSettings
	run      *CuratorRun
	ch       <-chan tea.Msg // the run's messages; nil when none is in flight
	tick     int            // seq of the spinner tick the run waits for
	frame    int
	cancel   context.CancelFunc // ends the run in flight
	// consented: the operator said y to sending trajectories to this
	// endpoint and model, once a session (the root asks: CuratorConsent).
	consented bool
	// started holds the id of every run this Curator started; the change
	// watcher reads it from its own goroutine (Started), hence the lock.
	mu      sync.Mutex
	started map[string]bool
}

// Started reports whether run id is one this program started: its
// proposals are committed before the run ends, so the change watcher can
// see them first and must not announce them as news from elsewhere. Safe
// from any goroutine.
func (c *Curator) Started(id string) bool {
	if c == nil || id == "" {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.started[id]
}

// CuratorConsent asks the root to ask the operator, before the session's
// first curator run, whether Trajectories may go to the model server the
// settings name; y calls Consent and starts the run.
type CuratorConsent struct{ Trajectories []string }

// Consent records the operator's y: runs from now on start without asking.
func (c *Curator) Consent() { c.consented = true }

// Endpoint is where a run sends the trajectories and to which model.
func (c *Curator) Endpoint() (baseURL, model string) { return c.settings.BaseURL, c.settings.Model }

// CuratorProgress is what the root broadcasts after the curator's Update
// applied a message: redraw the spinner (CuratorFrame) or the run's log
// (CuratorLog).
type CuratorProgress struct{ Change CuratorChange }

// Cancel ends the run in flight, if any: its model call is cancelled and
// it ends as failed, saving nothing.
func (c *Curator) Cancel() {
	if c != nil && c.cancel != nil {
		c.cancel()
	}
}

// NewCurator returns the curator the screens run with settings s (see
// the service's CuratorSettings). An empty s.Operator takes Deps.Operator.
func NewCurator(s app.CuratorSettings) *Curator { return &Curator{settings: s} }

// CuratorRun is what the screens show of a run.
type CuratorRun struct {
	ID           string
	Trajectories []string
	Events       []app.CuratorEvent // as they happened
	Done         bool
	Err          error    // why the run failed (nothing was saved); nil otherwise
	Proposals    []string // ids of the proposals it queued, once done
}

// Running reports whether r is in flight.
func (r *CuratorRun) Running() bool { return r != nil && !r.Done }

// Concerns reports whether r curates trajectory id.
func (r *CuratorRun) Concerns(id string) bool {
	return r != nil && id != "" && slices.Contains(r.Trajectories, id)
}

// CuratorEvent is the N-th (1-based) live step of curator run RunID.
type CuratorEvent struct {
	RunID string
	N     int
	Event app.CuratorEvent
}

// CuratorDone ends curator run RunID: Run is what it did, Err why it
// failed (then nothing was saved).
type CuratorDone struct {
	RunID string
	Run   *app.CuratorRun
	Err   error
}

// QueueChanged says proposals joined the queue behind the review screen's
// back (curator run RunID queued them); the review screen reloads it.
type QueueChanged struct{ RunID string }

// curatorTick moves the run's spinner.
type curatorTick struct {
	runID string
	seq   int
}

// CuratorChange says what Curator.Update did with a message.
type CuratorChange int

const (
	CuratorNone  CuratorChange = iota // not the curator's message
	CuratorFrame                      // the spinner moved: redraw it
	CuratorLog                        // the run's events or outcome changed
)

var spinFrames = spinner.MiniDot

// Run is the run in flight or the last one; nil before the first (or on a
// nil Curator).
func (c *Curator) Run() *CuratorRun {
	if c == nil {
		return nil
	}
	return c.run
}

// Spinner is the run's spinner frame.
func (c *Curator) Spinner() string {
	if c == nil {
		return ""
	}
	return spinFrames.Frames[c.frame%len(spinFrames.Frames)]
}

// Start begins a run over trajIDs with the read-only probe tools on and
// returns the Cmd that runs it. While another run is in flight, or when no
// model server is configured, it starts nothing and returns the sentence
// to show instead. Before the session's first run it starts nothing
// either: its Cmd asks the root to ask the operator (CuratorConsent).
func (c *Curator) Start(d Deps, trajIDs []string) (tea.Cmd, error) {
	if r := c.run; r.Running() {
		return nil, fmt.Errorf("curator run %s on %s is still going; wait for it to end", r.ID, strings.Join(r.Trajectories, ", "))
	}
	if err := c.settings.Ready(); err != nil {
		return nil, err
	}
	if !c.consented {
		ids := slices.Clone(trajIDs)
		return func() tea.Msg { return CuratorConsent{Trajectories: ids} }, nil
	}
	now := time.Now()
	if d.Service != nil {
		now = d.Service.Now()
	}
	id := app.NewCuratorRunID(now)
	c.mu.Lock()
	if c.started == nil {
		c.started = map[string]bool{}
	}
	c.started[id] = true
	c.mu.Unlock()
	ch := make(chan tea.Msg, 64)
	c.run = &CuratorRun{ID: id, Trajectories: slices.Clone(trajIDs)}
	c.ch, c.frame = ch, 0
	c.tick++

	s, ids := c.settings, slices.Clone(trajIDs)
	if s.Operator == "" {
		s.Operator = d.Operator
	}
	svc, logf := d.Service, d.Logf
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	work := func() {
		defer cancel()
		logf("curator run %s on %s: started (model %s at %s)", id, strings.Join(ids, ", "), s.Model, s.BaseURL)
		n := 0
		var run *app.CuratorRun
		err := errNoBank
		if svc != nil {
			// The service catches the index up after the run (re-distilled
			// packets, new proposals).
			run, err = svc.Curate(ctx, s, ids, app.CuratorOptions{
				Probe: true, RunID: id,
				OnEvent: func(e app.CuratorEvent) { n++; ch <- CuratorEvent{RunID: id, N: n, Event: e} },
			})
		}
		if err != nil {
			logf("curator run %s: %v", id, err)
		} else {
			logf("curator run %s: %d proposals", id, len(run.Proposals))
		}
		ch <- CuratorDone{RunID: id, Run: run, Err: err}
		close(ch)
	}
	start := func() tea.Msg {
		go work()
		return <-ch
	}
	return tea.Batch(start, c.nextTick()), nil
}

// errNoBank ends a curator run started without a bank (Deps.Service nil).
var errNoBank = errors.New("curator: no bank is open")

func waitFor(ch <-chan tea.Msg) tea.Cmd {
	return func() tea.Msg { return <-ch }
}

func (c *Curator) nextTick() tea.Cmd {
	return Heartbeat(spinFrames.FPS, curatorTick{runID: c.run.ID, seq: c.tick})
}

// Update applies msg when it is the curator's: a run's event or end, or a
// tick of its spinner, and returns the Cmd that continues the run (the
// wait for the next event, the footer message and QueueChanged at the end).
// Only the root calls it; screens get CuratorProgress. A nil Curator
// ignores all.
func (c *Curator) Update(msg tea.Msg) (tea.Cmd, CuratorChange) {
	if c == nil {
		return nil, CuratorNone
	}
	r := c.run
	switch msg := msg.(type) {
	case CuratorEvent:
		if r == nil || msg.RunID != r.ID {
			return nil, CuratorNone
		}
		if msg.N != len(r.Events)+1 || r.Done {
			return nil, CuratorLog // applied already
		}
		r.Events = append(r.Events, msg.Event)
		return waitFor(c.ch), CuratorLog
	case CuratorDone:
		if r == nil || msg.RunID != r.ID {
			return nil, CuratorNone
		}
		if r.Done {
			return nil, CuratorLog
		}
		r.Done, c.ch = true, nil
		if msg.Err != nil {
			r.Err = msg.Err
			return NotifyErr("nothing saved — " + msg.Err.Error()), CuratorLog
		}
		if msg.Run != nil {
			for _, p := range msg.Run.Proposals {
				r.Proposals = append(r.Proposals, p.ID)
			}
		}
		id := r.ID
		return tea.Batch(
			Notify(fmt.Sprintf("curator run %s made %s", id, count(len(r.Proposals), "proposal"))),
			func() tea.Msg { return QueueChanged{RunID: id} },
		), CuratorLog
	case curatorTick:
		if r == nil || msg.runID != r.ID {
			return nil, CuratorNone
		}
		if msg.seq != c.tick || r.Done {
			return nil, CuratorFrame
		}
		c.tick++
		c.frame++
		return c.nextTick(), CuratorFrame
	}
	return nil, CuratorNone
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// View renders the latest run for a pane of width w: a "Curator run"
// heading, its state and one line, wrapped, per event; "" before the first
// run. With spin, the state shows the spinner while the run is in flight
// (then redraw on CuratorFrame); without, "running…" (redraw on CuratorLog
// only, and show Spinner elsewhere).
func (c *Curator) View(st *Styles, w int, spin bool) string {
	r := c.Run()
	if r == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(st.Title.Render(Indent("Curator run ", r.ID+" · "+strings.Join(r.Trajectories, ", "), w, 2)) + "\n")
	switch {
	case r.Running():
		state := "running…"
		if spin {
			state = c.Spinner() + " running"
		}
		b.WriteString(st.Warn.Render(state) + st.Subtle.Render(fmt.Sprintf(" · %s so far", count(len(r.Events), "event"))) + "\n")
	case r.Err != nil:
		b.WriteString(st.Bad.Render(Wrap("✘ failed; nothing was saved", w)) + "\n")
	default:
		b.WriteString(st.Good.Render(Indent("✔ ", "made "+count(len(r.Proposals), "proposal")+": "+strings.Join(r.Proposals, ", "), w, 2)) + "\n")
	}
	for _, e := range r.Events {
		lead, text, bad := EventLine(e)
		style := st.Text
		switch {
		case bad:
			style = st.Bad
		case e.Kind != app.EventCall:
			style = st.Subtle
		}
		b.WriteString(style.Render(Indent(lead, text, w, 2)) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// maxEventText caps the text of one event line before wrapping.
const maxEventText = 300

// EventLine formats one curator event: a lead ("→ " a call, "← " its
// result, "✘ " a failure, "· " anything else), the text, and whether it
// reports a failure. E.g. → sql_query {"env":"shop","sql":"SELECT …"},
// ← 3 rows (run_cur_…_1), ✘ sql_query: …
func EventLine(e app.CuratorEvent) (lead, text string, bad bool) {
	switch e.Kind {
	case app.EventCall:
		if strings.HasPrefix(e.Tool, "propose_") {
			if s, ok := proposeSummary(e.Args); ok {
				return "→ ", clipText(e.Tool + " " + s), false
			}
		}
		return "→ ", clipText(e.Tool + " " + compactJSON(e.Args)), false
	case app.EventResult:
		if e.Err != nil {
			return "✘ ", clipText(e.Tool + ": " + e.Err.Error()), true
		}
		s, failed := resultSummary(e.Result)
		return "← ", clipText(s), failed
	case app.EventDistill:
		return "· ", clipText("distilled " + e.Trajectory + ": " + e.Result), false
	case app.EventText:
		return "· ", clipText("model: " + oneLine(e.Result)), false
	case app.EventError:
		msg := "the run failed"
		if e.Err != nil {
			msg = e.Err.Error()
		}
		return "✘ ", clipText(msg), true
	}
	return "· ", clipText(e.Kind + " " + e.Tool + " " + oneLine(e.Result)), e.Err != nil
}

// proposeSummary shortens a propose_* call's arguments to its targets and
// the proposed lemma, or the rationale when there is no record:
// mem_0001: "In shop, …" (fact, env shop).
func proposeSummary(args string) (string, bool) {
	var a struct {
		Targets []string `json:"targets"`
		Record  *struct {
			Lemma    string `json:"lemma"`
			Category string `json:"category"`
			Scope    struct {
				Env string `json:"env"`
			} `json:"scope"`
		} `json:"record"`
		Rationale string `json:"rationale"`
	}
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return "", false
	}
	s := ""
	if len(a.Targets) > 0 {
		s = strings.Join(a.Targets, ", ") + ": "
	}
	if r := a.Record; r != nil && r.Lemma != "" {
		s += strconv.Quote(oneLine(r.Lemma))
		var about []string
		if r.Category != "" {
			about = append(about, r.Category)
		}
		if r.Scope.Env != "" {
			about = append(about, "env "+r.Scope.Env)
		}
		if len(about) > 0 {
			s += " (" + strings.Join(about, ", ") + ")"
		}
		return s, true
	}
	return s + oneLine(a.Rationale), true
}

// resultSummary says in a few words what a tool answered: "3 rows", "5
// records", "queued propose_create", "finished", or the probe's error.
func resultSummary(result string) (string, bool) {
	var v any
	if err := json.Unmarshal([]byte(result), &v); err != nil {
		return oneLine(result), false
	}
	switch t := v.(type) {
	case []any:
		return count(len(t), "record"), false
	case map[string]any:
		run, _ := t["probe_run"].(string)
		suffix := ""
		if run != "" {
			suffix = " (" + run + ")"
		}
		if e, ok := t["error"].(string); ok && e != "" {
			return "error: " + oneLine(e) + suffix, true
		}
		if q, ok := t["queued"].(string); ok {
			return "queued " + q, false
		}
		if _, ok := t["columns"]; ok || run != "" {
			if txt, ok := t["text"].(string); ok && txt != "" {
				return count(strings.Count(strings.TrimRight(txt, "\n"), "\n")+1, "line") + suffix, false
			}
			rows, _ := t["rows"].([]any)
			return count(len(rows), "row") + suffix, false
		}
		if id, ok := t["id"].(string); ok {
			return "record " + id, false
		}
	case string:
		return oneLine(t), false
	}
	return oneLine(result), false
}

func compactJSON(s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return oneLine(s)
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func clipText(s string) string {
	if r := []rune(s); len(r) > maxEventText {
		return string(r[:maxEventText-1]) + "…"
	}
	return s
}
