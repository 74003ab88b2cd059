package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/memreview/memreview/ui/bank"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/console"
	"github.com/memreview/memreview/ui/queue"
	"github.com/memreview/memreview/ui/trajs"
)

// Constructor builds a screen. It must not do slow work: anything that
// reads the bank belongs in the screen's Init.
type Constructor func(common.Common, common.Deps) common.Screen

// Screens maps each screen's number key to its constructor: 1 the review
// queue, 2 the bank browser, 3 the probe console, 4 the trajectories. A
// screen not built yet can stand in as Placeholder(title, what).
var Screens = map[int]Constructor{
	1: queue.New,
	2: bank.New,
	3: console.New,
	4: trajs.New,
}

// Placeholder returns a constructor for a screen that is not built yet.
func Placeholder(title, what string) Constructor {
	return func(c common.Common, _ common.Deps) common.Screen {
		return &placeholder{Common: c, title: title, what: what}
	}
}

type placeholder struct {
	common.Common
	title, what string
}

func (p *placeholder) Init() tea.Cmd                           { return nil }
func (p *placeholder) Update(tea.Msg) (common.Screen, tea.Cmd) { return p, nil }
func (p *placeholder) SetSize(w, h int)                        { p.Width, p.Height = w, h }
func (p *placeholder) ShortHelp() []key.Binding                { return nil }
func (p *placeholder) Title() string                           { return p.title }

func (p *placeholder) View() string {
	msg := p.Styles.Subtle.Render(p.title + " — " + p.what + " — is not built yet.\nPress 1 for the review queue.")
	return lipgloss.Place(p.Width, p.Height, lipgloss.Center, lipgloss.Center, msg)
}
