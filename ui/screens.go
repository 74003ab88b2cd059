package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"

	"github.com/memreview/memreview/ui/bank"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/console"
	"github.com/memreview/memreview/ui/eval"
	"github.com/memreview/memreview/ui/queue"
	"github.com/memreview/memreview/ui/trajs"
)

// Constructor builds a screen. It must not do slow work: anything that
// reads the bank belongs in the screen's Init.
type Constructor func(common.Common, common.Deps) common.Screen

// ScreenDef is one entry of the registry: the screen's id (its number key),
// the tab title it has before it is built, and its constructor.
type ScreenDef struct {
	ID   common.ScreenID
	Name string
	New  Constructor
}

// Screens is the one registry of screens, in tab order. Adding a screen
// is a ScreenID and a line here; the root derives the tabs, the number
// keys and the help from it.
var Screens = []ScreenDef{
	{common.ScreenReview, "Review", queue.New},
	{common.ScreenBank, "Bank", bank.New},
	{common.ScreenProbes, "Probes", console.New},
	{common.ScreenTrajectories, "Trajectories", trajs.New},
	{common.ScreenEval, "Eval", eval.New},
}

// screenDef returns the registry entry of id.
func screenDef(id common.ScreenID) (ScreenDef, bool) {
	for _, d := range Screens {
		if d.ID == id {
			return d, true
		}
	}
	return ScreenDef{}, false
}

// screenKeys are the number keys, one per registered screen, in tab order.
func screenKeys() []key.Binding {
	var ks []key.Binding
	for _, d := range Screens {
		n := strconv.Itoa(int(d.ID))
		ks = append(ks, key.NewBinding(key.WithKeys(n), key.WithHelp(n, strings.ToLower(d.Name))))
	}
	return ks
}
