// Package ui is memreview's terminal program: a root model that owns the
// terminal size, the header and footer, the help overlay and switching
// between screens (review queue, bank, probes, trajectories), each of which
// lives in its own sub-package and plugs in through Screens.
package ui

import (
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
)

// Minimum terminal size; below it the program shows only a notice.
const (
	MinWidth  = 60
	MinHeight = 15
)

// statusTTL is how long a transient footer message stays.
const statusTTL = 8 * time.Second

// Model is the root model.
type Model struct {
	c       common.Common
	deps    common.Deps
	screens map[common.ScreenID]common.Screen // built on first use
	active  common.ScreenID
	keys    []key.Binding // the number keys, one per screen (screenKeys)
	help    help.Model
	showAll bool // the ? overlay

	status       common.Status
	statusSeq    int
	focus        *common.Focus          // the latest, for screens built later
	seq          int64                  // the bank's change sequence as last seen (watch.go)
	changes      <-chan app.ChangeSet   // the service's changes after seq (watch.go)
	othersClaims string                 // other operators' claims as last polled (watch.go)
	lastErr      string                 // the last error shown in the footer, in full (! shows it)
	errUnread    bool                   // lastErr not yet read with !: the footer offers "! error"
	showErr      bool                   // the ! overlay
	consent      *common.CuratorConsent // the first curator run's question, while asked (consent.go)

	index indexState // the search index being opened in the background (index.go)
	embed embedState // the background embedder's status (embedstatus.go)

	hygiene    *hygieneRun // the H run in flight; nil when none (hygiene.go)
	hygieneSeq int
	own        ownProposals // the proposals H and the curator runs queued: the change watcher does not announce them
}

// clearStatus ends a transient message unless a newer one replaced it.
type clearStatus struct{ seq int }

// New returns the root model with the review queue active.
func New(deps common.Deps) tea.Model {
	c := common.NewCommon()
	h := help.New()
	h.Styles.ShortKey = c.Styles.Title
	h.Styles.ShortDesc = c.Styles.Footer
	h.Styles.ShortSeparator = c.Styles.Footer
	h.Styles.FullKey = c.Styles.Title
	h.Styles.FullDesc = c.Styles.Text
	h.Styles.FullSeparator = c.Styles.Subtle
	h.Styles.Ellipsis = c.Styles.Footer
	return &Model{c: c, deps: deps, screens: map[common.ScreenID]common.Screen{},
		active: common.ScreenReview, help: h, keys: screenKeys(), own: ownProposals{curator: deps.Curator}}
}

// Run starts the program on the alternate screen with mouse support and
// blocks until the user quits.
func Run(deps common.Deps) error {
	p := tea.NewProgram(New(deps), tea.WithAltScreen(), tea.WithMouseCellMotion())
	_, err := p.Run()
	deps.Curator.Cancel() // however the program ended
	return err
}

// Init builds and starts the review queue, and follows the opening of the
// index when it is still under way.
func (m *Model) Init() tea.Cmd {
	return safe(tea.Batch(m.screen(m.active).Init(), m.startWatch(), m.waitIndex(), m.pollEmbeddings()), m.deps.Logf)
}

// screen returns screen n, building it on first use.
func (m *Model) screen(n common.ScreenID) common.Screen {
	if s, ok := m.screens[n]; ok {
		return s
	}
	c := m.c
	c.Width, c.Height = m.bodySize()
	def, _ := screenDef(n)
	s := def.New(c, m.deps)
	s.SetSize(c.Width, c.Height)
	m.screens[n] = s
	return s
}

// bodySize is the space between the header and the footer.
func (m *Model) bodySize() (int, int) {
	h := m.c.Height - headerHeight - footerHeight
	if h < 0 {
		h = 0
	}
	return m.c.Width, h
}

// show switches to screen n, building and starting it on first use. A
// screen built earlier that has a focus (common.Focuser) announces it
// again: other screens may have moved the focus while it was hidden.
func (m *Model) show(n common.ScreenID) tea.Cmd {
	if _, ok := screenDef(n); !ok || n == m.active {
		return nil
	}
	_, built := m.screens[n]
	s := m.screen(n)
	m.active = n
	m.clearErr() // the error was about the screen left
	if !built {
		init := s.Init()
		if m.focus != nil {
			return tea.Batch(init, m.forward(n, *m.focus))
		}
		return init
	}
	if f, ok := s.(common.Focuser); ok {
		if focus, ok := f.Focus(); ok && (m.focus == nil || *m.focus != focus) {
			return m.setFocus(focus)
		}
	}
	return nil
}

// clearErr takes an error off the footer (the next key or screen does);
// ! still shows it.
func (m *Model) clearErr() {
	if m.status.Err {
		m.status = common.Status{}
	}
}

// setFocus keeps f for screens built later and hands it to every built
// screen.
func (m *Model) setFocus(f common.Focus) tea.Cmd {
	m.focus = &f
	var cmds []tea.Cmd
	for n := range m.screens {
		cmds = append(cmds, m.forward(n, f))
	}
	return tea.Batch(cmds...)
}

func (m *Model) setStatus(s common.Status) tea.Cmd {
	m.status = s
	m.statusSeq++
	if s.Err {
		m.lastErr, m.errUnread = s.Text, true
	}
	seq := m.statusSeq
	if s.Err { // errors stay until the next message
		return nil
	}
	return common.Heartbeat(statusTTL, clearStatus{seq})
}
