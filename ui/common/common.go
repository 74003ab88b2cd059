// Package common holds what every memreview screen shares: the size and
// look of the terminal (Common), the one key map, the Screen interface the
// root model drives, the dependencies screens read from (Deps), the
// curator runner the review and trajectories screens share (Curator, in
// curate.go), the text helpers that keep what reaches the terminal
// printable, and the navigation and status messages screens send each
// other through the root.
//
// Screens live in sub-packages of ui (ui/queue, ui/bank, ui/console,
// ui/trajs, ui/eval) and build on this package, ui/form (the record and note forms)
// and ui/widget (the search box, the pane manager and the detail pane);
// the root package ui owns switching between them.
package common

import (
	"log"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/review/app"
)

// Common is embedded by every screen: the space it may draw in and the
// shared look and keys. Width and Height are the screen body's size, i.e.
// the terminal less the root's header and footer.
//
// Keys is a value so that each screen enables and disables its own copy of
// the bindings without touching another screen's.
type Common struct {
	Width, Height int
	Styles        *Styles
	Keys          KeyMap
}

// NewCommon returns a Common with the default styles and keys.
func NewCommon() Common {
	return Common{Styles: DefaultStyles(), Keys: DefaultKeyMap()}
}

// Deps are the long-lived things screens work on. Screens only read the
// fields; the root owns them. Slow calls on Service belong in tea.Cmds.
type Deps struct {
	// Service offers every use case on the bank (review/app): the one
	// way screens read and write the store and search the index. nil: no
	// bank is open (tests of layout only), and screens offer nothing that
	// needs one.
	Service  *app.Service
	BankName string      // shown in the header
	IsSample bool        // the bank is the generated sample world
	Operator string      // recorded on every decision
	Log      *log.Logger // a file in the bank directory; never the screen
	// Curator runs the LLM curator when c is pressed on the review or
	// trajectories screen, one run at a time for the whole program (see
	// NewCurator); nil: no curator is set up and c is off.
	Curator *Curator
	// IndexProgress, when set, tells how far this process's opening of the
	// search index (a build or a long catch-up), or a later catch-up, has
	// come; a report of Total 0 (or the channel closing) says it is done.
	// The program draws its first frame without waiting for the index,
	// shows this in the footer; searches meanwhile read what the index
	// lacks from the bank (index.Results.Direct).
	IndexProgress <-chan IndexProgress
}

// IndexProgress is how far building or catching up the index has come.
type IndexProgress struct{ Done, Total int }

// Logf writes to the log when there is one.
func (d Deps) Logf(format string, args ...any) {
	if d.Log != nil {
		d.Log.Printf(format, args...)
	}
}

// Screen is one full-size screen of the program (review queue, bank
// browser, probe console, trajectories). How the root drives it:
//
//   - It is built on first use, given SetSize, then Init. The root never
//     forwards tea.WindowSizeMsg: SetSize (the body, less header and footer)
//     is the only size signal.
//   - Keys and mouse go to the active screen only, mouse Y relative to the
//     body. q, ?, the screen numbers and ctrl+c are global unless the screen is Capturing
//     (then only ctrl+c is).
//   - Every other message (background results, Focus, spinner ticks) goes
//     to every built screen, so each must drop results that are not its own.
//   - When it becomes the active screen and is a Focuser, its Focus is
//     broadcast as if it had just announced it.
//   - Navigation messages (ShowRecord, ShowTrajectory, ShowProposal) switch
//     to the screen that shows that kind of thing and are then forwarded to
//     it. Status messages go to the footer.
type Screen interface {
	Init() tea.Cmd
	Update(tea.Msg) (Screen, tea.Cmd)
	View() string
	// SetSize gives the screen its body size; screens re-wrap here, not in View.
	SetSize(width, height int)
	// ShortHelp lists the keys that apply now (disabled bindings are hidden).
	ShortHelp() []key.Binding
	// Title is the screen's header text, e.g. "Review 3/17 · op=merge".
	Title() string
}

// Capturer is implemented by screens that sometimes take typed text (a
// search box, a form). While Capturing reports true the root passes every
// key but ctrl+c to the screen instead of treating q, ?, the screen numbers
// as global.
type Capturer interface {
	Capturing() bool
}

// FullHelper is implemented by screens with more keys than fit the footer;
// the root's help overlay (?) shows FullHelp when present, ShortHelp if not.
type FullHelper interface {
	FullHelp() [][]key.Binding
}

// ShowRecord asks the root to show a record (in the bank browser).
type ShowRecord struct{ ID string }

// ShowTrajectory asks the root to show a trajectory, scrolled to Step
// (1-based; 0 for the top).
type ShowTrajectory struct {
	ID   string
	Step int
}

// Quitting tells every screen the program is about to end: a screen
// releases what it holds (a claim) in the Cmd it returns, which runs
// before the program quits.
type Quitting struct{}

// ShowProposal asks the root to show a proposal on the review screen.
type ShowProposal struct{ ID string }

// BankChanged says screen From committed a write to the bank (a decision,
// an undo, a record verb). From has reloaded what it shows already; the
// other screens reload theirs, so none shows a record version or a queue
// that the write replaced.
type BankChanged struct{ From string }

// Changed returns a Cmd that announces a committed write by screen from.
func Changed(from string) tea.Cmd {
	return func() tea.Msg { return BankChanged{From: from} }
}

// EvidenceAttached says probe run Run was attached as evidence to the
// proposal or record Target (the console's A); a screen that shows Target
// reloads it so the new evidence appears.
type EvidenceAttached struct {
	Target Focus
	Run    string
}

// Focus names what the operator is looking at, so that other screens (the
// probe console) can act on it, e.g. attach evidence. Kind is "proposal" or
// "record". Screens send it when their selection changes; the root
// broadcasts it to every screen and hands the latest one to screens built
// later.
type Focus struct {
	Kind string
	ID   string
}

// Focuser is implemented by screens whose selection is a Focus (the review
// screen's proposal, the bank's record). A screen announces its focus when
// its selection changes, but another screen may announce one after it;
// so when the root shows a Focuser again it asks for its focus and
// broadcasts it.
type Focuser interface {
	// Focus returns what the screen shows now; false while it shows
	// nothing (loading, or an empty list).
	Focus() (Focus, bool)
}

// FocusOn returns a Cmd that announces a new focus.
func FocusOn(kind, id string) tea.Cmd {
	return func() tea.Msg { return Focus{Kind: kind, ID: id} }
}

// Status is a transient footer message. Err marks a failure; the text
// should say what failed and what to do.
type Status struct {
	Text string
	Err  bool
}

// Notify returns a Cmd that puts text in the footer.
func Notify(text string) tea.Cmd {
	return func() tea.Msg { return Status{Text: text} }
}

// NotifyErr returns a Cmd that puts a failure in the footer.
func NotifyErr(text string) tea.Cmd {
	return func() tea.Msg { return Status{Text: text, Err: true} }
}

// Base is the Common a screen's model embeds (overlays shared between
// screens read its keys and styles through it).
func (c *Common) Base() *Common { return c }
