package trajs

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// The shared test helpers live in ui/uitest; these names keep this
// package's tests reading as they did until they call uitest directly.

func TestMain(m *testing.M) { uitest.Main(m) }

var (
	openSample = uitest.OpenSample
	waitFor    = uitest.WaitFor
	quit       = uitest.Quit
)

// root is uitest.Root built from a literal: &root{screens: …}.
type root struct {
	uitest.Root
	screens []common.Screen
}

func (r *root) Init() tea.Cmd {
	r.Screens = r.screens
	return r.Root.Init()
}
