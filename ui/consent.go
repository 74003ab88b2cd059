package ui

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/memreview/memreview/ui/common"
)

// The first curator run of a session asks before anything leaves the
// machine: c on a screen sends common.CuratorConsent instead of starting
// the run, and the root asks whether the trajectory may go to the model
// server and model the settings name. y starts the run and runs after it
// do not ask again; n or esc sends nothing.

// askConsent takes the question while the operator answers it.
func (m *Model) askConsent(msg common.CuratorConsent) tea.Cmd {
	m.consent = &msg
	return nil
}

// consentKey answers the question.
func (m *Model) consentKey(msg tea.KeyMsg) tea.Cmd {
	k := m.c.Keys
	ask := m.consent
	switch {
	case key.Matches(msg, k.Yes):
		m.consent = nil
		m.deps.Curator.Consent()
		cmd, err := m.deps.Curator.Start(m.deps, ask.Trajectories)
		if err != nil {
			return common.NotifyErr(err.Error())
		}
		return tea.Batch(cmd, m.broadcast(common.CuratorProgress{Change: common.CuratorLog}))
	case key.Matches(msg, k.No), key.Matches(msg, k.Cancel):
		m.consent = nil
		return common.Notify("nothing was sent to the model server")
	case key.Matches(msg, k.Quit):
		return m.quit()
	}
	return nil
}

// consentOverlay is the question.
func (m *Model) consentOverlay(h int) string {
	st := m.c.Styles
	inner := max(m.c.Width-st.Overlay.GetHorizontalFrameSize(), 1)
	url, model := m.deps.Curator.Endpoint()
	q := "Send " + strings.Join(m.consent.Trajectories, ", ") + " to the model " + model + " at " + url + "?"
	text := st.Title.Render("Run the curator") + "\n\n" + st.Warn.Render(common.Wrap(common.Printable(q), inner)) + "\n\n" +
		common.Wrap("The curator sends the trajectory, the bank's records it searches and the probe results it gets to that server. "+
			"Runs after this one in this session do not ask again. OPENAI_BASE_URL, OPENAI_API_KEY and [curator] in memreview.toml choose the server.", inner) +
		"\n\n" + st.Subtle.Render("y sends it · n or esc sends nothing")
	box := st.Overlay.Width(m.c.Width - st.Overlay.GetHorizontalBorderSize()).Render(fitLines(text, inner))
	return lipgloss.NewStyle().MaxHeight(h).Render(box)
}
