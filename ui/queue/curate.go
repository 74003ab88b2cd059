package queue

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/ui/common"
)

// c on the review screen: run the curator, probes on, over the shown
// proposal's trajectory. The run's events stream into the probes pane
// (common.Curator.View) of every proposal while it runs, and stay there
// afterwards for the proposals of that trajectory or made by that run;
// its end reloads the queue (common.QueueChanged).

// curate starts a run on the shown proposal's trajectory, or says why not.
func (m *Model) curate() tea.Cmd {
	p := m.current()
	if m.deps.Curator == nil || p == nil || p.Trajectory == "" {
		return nil
	}
	cmd, err := m.deps.Curator.Start(m.deps, []string{p.Trajectory})
	if err != nil {
		return common.NotifyErr(err.Error())
	}
	m.panes.SetFocus(paneProbes) // stacked, the probes pane is where the run shows
	m.renderPane(paneProbes)
	m.panes.Body(paneProbes).GotoTop()
	return cmd
}

// showsCurator reports whether the probes pane shows the curator's run:
// while it runs, on every proposal; afterwards, on the proposals of the
// trajectory it curated and on those it made.
func (m *Model) showsCurator() bool {
	r := m.deps.Curator.Run()
	if r == nil || !m.ready() {
		return false
	}
	return r.Running() || r.Concerns(m.cur.P.Trajectory) || m.cur.P.CuratorRun == r.ID
}
