package trajs

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/ui/common"
)

// c on the trajectories screen: run the curator, probes on, over the
// selected trajectory. Its events show at the top of that trajectory's
// detail (common.Curator.View), its spinner in the detail's title; its end
// sends common.QueueChanged, on which the review screen reloads its queue.

// curate starts a run on the selected trajectory, or says why not.
func (m *Model) curate() tea.Cmd {
	t := m.selected()
	if m.deps.Curator == nil || t == nil {
		return nil
	}
	cmd, err := m.deps.Curator.Start(m.deps, []string{t.ID})
	if err != nil {
		return common.NotifyErr(err.Error())
	}
	m.focus = paneDetail // stacked, the detail is where the run shows
	m.layout()
	m.renderDetail()
	m.pane.GotoTop()
	return cmd
}

// showsCurator reports whether the detail shows the curator's latest run:
// it curates the selected trajectory.
func (m *Model) showsCurator() bool {
	t := m.selected()
	return t != nil && m.deps.Curator.Run().Concerns(t.ID)
}

// curatorTitle is the detail title's note of a run in flight, e.g.
// " · ⠋ curating traj_07".
func (m *Model) curatorTitle() string {
	r := m.deps.Curator.Run()
	if !r.Running() {
		return ""
	}
	return " · " + m.deps.Curator.Spinner() + " curating " + strings.Join(r.Trajectories, ", ")
}
