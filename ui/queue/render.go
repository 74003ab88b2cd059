package queue

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/review"

	"github.com/memreview/memreview/ui/common"
)

// Layout and View. Pane content is wrapped in render (on size, proposal or
// state change) and cached in the viewports; View only joins cached parts.

// sampleNotice is the first line of the screen on the sample world.
const sampleNotice = "This is the sample world. Review a real bank with `memreview --bank DIR` or MEMREVIEW_BANK=DIR."

// The pane manager (widget.Panes) lays the three panes out: side by side
// from WideWidth, else stacked under their tabs; z zooms the focused one.

// topLines is the number of lines above the panes (and their tabs).
func (m *Model) topLines() int {
	n := 1 // the proposal line
	if m.deps.IsSample {
		n++
	}
	return n
}

// layout sizes the panes for the current width and height.
func (m *Model) layout() {
	m.panes.SetSize(m.Width, max(m.Height-m.topLines(), 0))
}

// render re-wraps every pane's content at its current width.
func (m *Model) render() {
	if m.Width == 0 {
		return
	}
	for i := range m.panes.Len() {
		m.renderPane(i)
	}
}

func (m *Model) renderPane(i int) {
	body := m.panes.Body(i)
	if !m.ready() {
		body.SetContent("")
		return
	}
	w := body.Width()
	var s string
	switch i {
	case paneTrajectory:
		s = m.trajectoryContent(w)
	case paneCandidate:
		s = m.candidateContent(w)
	case paneProbes:
		s = m.probesContent(w)
	}
	body.SetContent(s)
}

// Title is the header: queue position and filters.
func (m *Model) Title() string {
	t := "Review"
	switch {
	case !m.loaded:
		t += " …"
	default:
		pos := 0
		if len(m.queue) > 0 {
			pos = m.pos + 1
		}
		t += fmt.Sprintf(" %d/%d", pos, len(m.queue))
		if n := len(m.session); n > 0 {
			t += fmt.Sprintf(" · decided %d of %d this session", n, m.sessionTotal())
		}
		t += m.claimsTitle()
	}
	if f := m.filter.String(); f != "" {
		t += " · " + f
	}
	return t
}

// String describes the filter, e.g. "op=merge env=shop"; "" when off.
func (f Filter) String() string {
	var parts []string
	if f.Op != "" {
		parts = append(parts, "op="+string(f.Op))
	}
	if f.Env != "" {
		parts = append(parts, "env="+f.Env)
	}
	if f.Category != "" {
		parts = append(parts, "category="+string(f.Category))
	}
	return strings.Join(parts, " ")
}

// View draws the screen body: notice, proposal line, then the panes or the
// open overlay.
func (m *Model) View() string {
	if m.Width <= 0 || m.Height <= 0 {
		return ""
	}
	st := m.Styles
	var lines []string
	if m.deps.IsSample {
		lines = append(lines, st.Notice.Render(ansi.Truncate(sampleNotice, m.Width, "…")))
	}
	lines = append(lines, m.proposalLine())
	body := ""
	switch {
	case m.overlay != nil:
		body = m.overlay.View(m, m.Width, m.Height-len(lines))
	case m.listOn && m.loaded && m.loadErr == nil:
		body = m.list.View()
	case !m.loaded:
		body = st.Subtle.Render("loading the queue…")
	case m.loadErr != nil:
		body = st.Error.Render(m.wrapped(m.loadErr.Error(), m.Width))
	case len(m.queue) == 0:
		body = st.Subtle.Render(m.wrapped(m.emptyText(), m.Width))
	default:
		body = m.panes.View(m.paneTitle)
	}
	out := strings.Join(lines, "\n") + "\n" + body
	if n := strings.Count(out, "\n"); n >= m.Height {
		out = strings.Join(strings.SplitN(out, "\n", m.Height+1)[:m.Height], "\n")
	}
	return out
}

func (m *Model) emptyText() string {
	if len(m.all) > 0 {
		return fmt.Sprintf("No open proposal matches %s (%d open in all). Press f to change the filter.", m.filter, len(m.all))
	}
	if n := len(m.session); n > 0 {
		return fmt.Sprintf("Done: you decided %d proposals this session and the queue is empty. Press u to undo the last decision, 2 to browse the bank.", n)
	}
	return "No proposal waits for review. New ones arrive from the curator (c on a trajectory, screen 4), `memreview curate`, or `memreview import proposals`; they appear here as they are queued."
}

// proposalLine names the shown proposal, its op badge and what is in flight.
func (m *Model) proposalLine() string {
	st := m.Styles
	p := m.current()
	left := ""
	if p != nil {
		left = st.Badge.Render(strings.ToUpper(string(p.Op))) + " " + st.Title.Render(p.ID)
		if r := p.Record; r != nil {
			left += st.Subtle.Render(" · " + string(r.Category))
		}
		if env := proposalEnv(p, m.envOf); env != "" {
			left += st.Subtle.Render(" · env " + env)
		}
		if p.Trajectory != "" {
			left += st.Subtle.Render(" · " + p.Trajectory)
		}
		if p.Status == review.Deferred {
			left += st.Warn.Render(" · deferred")
		}
	}
	right := ""
	if m.busy != "" {
		right = st.Warn.Render(m.busy)
	} else if r := m.deps.Curator.Run(); r.Running() {
		right = st.Warn.Render(m.deps.Curator.Spinner() + " curating " + strings.Join(r.Trajectories, ", "))
	} else if m.note != "" {
		right = st.Notice.Render("note: " + common.PrintableLine(m.note))
	}
	return common.Spread(left, right, m.Width)
}

// paneTitle is a pane's title line with its scroll position.
func (m *Model) paneTitle(i int) string {
	t := paneTitles[i]
	switch {
	case !m.ready():
	case i == paneTrajectory && m.cur.Traj != nil:
		t += " " + m.cur.Traj.ID
	case i == paneCandidate:
		t += " " + m.cur.P.ID
	}
	return t + m.panes.Body(i).ScrollPercent()
}

// wrapCache remembers the last texts View wrapped, so that a View whose
// text and width did not change does not wrap again.
type wrapCache map[string]wrapped

type wrapped struct {
	width int
	out   string
}

// wrapped returns s wrapped to w, from the cache when s was last wrapped
// at w. Texts are few (a message, a form's title and error), so the cache
// keeps them all.
func (m *Model) wrapped(s string, w int) string {
	if m.wraps == nil {
		m.wraps = wrapCache{}
	}
	if c, ok := m.wraps[s]; ok && c.width == w {
		return c.out
	}
	if len(m.wraps) > 64 {
		clear(m.wraps)
	}
	out := common.Wrap(s, w)
	m.wraps[s] = wrapped{w, out}
	return out
}

// sessionTotal is what this session has had to review: the open proposals
// and those it decided that are no longer open (a deferred one is both).
func (m *Model) sessionTotal() int {
	n := len(m.all)
	for id := range m.session {
		if !m.open[id] {
			n++
		}
	}
	return n
}
