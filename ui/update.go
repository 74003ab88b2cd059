package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/ui/common"
)

// Update handles the global keys and messages and routes the rest: keys
// and mouse to the active screen, everything else (background results) to
// every built screen, since each drops results that are not its own.
//
// Every Cmd it returns is wrapped (safe): a panic in one is logged and
// shown, not fatal.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := m.update(msg)
	return m, safe(cmd, m.deps.Logf)
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if cmd, ch := m.deps.Curator.Update(msg); ch != common.CuratorNone {
		return m, tea.Batch(cmd, m.broadcast(common.CuratorProgress{Change: ch}))
	}
	if cmd, ok := m.updateHygiene(msg); ok {
		return m, cmd
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.c.Width, m.c.Height = msg.Width, msg.Height
		m.help.Width = msg.Width
		w, h := m.bodySize()
		for _, s := range m.screens {
			s.SetSize(w, h)
		}
		return m, nil
	case tea.KeyMsg:
		return m, m.handleKey(msg)
	case tea.MouseMsg:
		if m.showAll || m.tooSmall() {
			return m, nil
		}
		msg.Y -= headerHeight
		return m, m.forward(m.active, msg)
	case common.Delayed:
		return m, msg.Timer()
	case common.Awaiting:
		return m, msg.Cmd
	case watching:
		return m, m.watched(msg)
	case changesSeen:
		return m, m.seen(msg)
	case indexMsg:
		return m, m.indexUpdate(msg)
	case embedMsg:
		return m, m.embedUpdate(msg)
	case embedTick:
		return m, m.pollEmbeddings()
	case common.Status:
		return m, m.setStatus(msg)
	case clearStatus:
		if msg.seq == m.statusSeq {
			m.status = common.Status{}
		}
		return m, nil
	case common.Navigation:
		return m, m.navigate(msg.Target(), msg)
	case common.Focus:
		return m, m.setFocus(msg)
	case common.CuratorConsent:
		return m, m.askConsent(msg)
	}
	return m, m.broadcast(msg)
}

// broadcast hands msg to every built screen.
func (m *Model) broadcast(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for n := range m.screens {
		cmds = append(cmds, m.forward(n, msg))
	}
	return tea.Batch(cmds...)
}

func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := m.c.Keys
	if msg.Type == tea.KeyCtrlC {
		return m.quit()
	}
	if !key.Matches(msg, k.Errors) {
		m.clearErr() // an error stays in the footer until the next key
	}
	if m.consent != nil {
		return m.consentKey(msg)
	}
	if c, ok := m.screens[m.active].(common.Capturer); ok && c.Capturing() {
		return m.forward(m.active, msg)
	}
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste {
		// Keys typed faster than the terminal is read (a held j, or ]]]
		// from a script) arrive as one message. Outside a text field each
		// is a keystroke of its own: handled in order, each seeing what the
		// one before changed (a / that opens the search box sends the rest
		// to the box).
		var cmds []tea.Cmd
		for _, r := range msg.Runes {
			cmds = append(cmds, m.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt}))
		}
		return tea.Batch(cmds...)
	}
	if m.showErr {
		if key.Matches(msg, k.Errors, k.Cancel, k.Help) {
			m.showErr, m.errUnread = false, false
			if m.status.Err && m.status.Text == m.lastErr {
				m.status = common.Status{} // read in full: it leaves the footer (! shows it again)
			}
		} else if key.Matches(msg, k.Quit) {
			return m.quit()
		}
		return nil
	}
	if m.showAll {
		if key.Matches(msg, k.Help, k.Cancel) {
			m.showAll = false
		} else if key.Matches(msg, k.Quit) {
			return m.quit()
		}
		return nil
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.showAll = true
		return nil
	case key.Matches(msg, k.Errors) && m.lastErr != "":
		m.showErr = true
		return nil
	case key.Matches(msg, k.Hygiene) && !m.tooSmall():
		return m.startHygiene()
	}
	for i, b := range m.keys {
		if key.Matches(msg, b) {
			return m.show(Screens[i].ID)
		}
	}
	if m.tooSmall() {
		return nil
	}
	return m.forward(m.active, msg)
}

// navigate shows screen n and hands it the navigation message.
func (m *Model) navigate(n common.ScreenID, msg tea.Msg) tea.Cmd {
	if _, ok := screenDef(n); !ok {
		return nil
	}
	start := m.show(n)
	return tea.Batch(start, m.forward(n, msg))
}

func (m *Model) forward(n common.ScreenID, msg tea.Msg) tea.Cmd {
	s, ok := m.screens[n]
	if !ok {
		return nil
	}
	s, cmd := s.Update(msg)
	m.screens[n] = s
	return cmd
}

// quit ends the program, cancelling a curator run in flight (its HTTP call
// ends with the program instead of running on).
func (m *Model) quit() tea.Cmd {
	m.deps.Curator.Cancel()
	return tea.Sequence(m.broadcast(common.Quitting{}), tea.Quit) // screens release their claims first
}
