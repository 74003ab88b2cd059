// Package widget holds the components screens are built from, each with
// its own Update (or key step), View and SetSize: the search box (debounce
// and sequence numbers) the bank and the trajectories screens share, the
// detail pane (a scrollable body of cached, width-cut lines) and the pane
// manager that owns the review screen's panes: focus, stacking and zoom.
package widget

import (
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/memreview/memreview/ui/common"
)

// DebounceDelay is how long a search box waits for the next keystroke.
const DebounceDelay = 120 * time.Millisecond

// MaxQuery is the most a one-line search box takes; a longer paste is cut
// with a notice.
const MaxQuery = 2000

// SearchDue is a search box's debounce firing: the query typed into box
// Owner as of keystroke Seq is due to run.
type SearchDue struct {
	Owner string
	Seq   int
}

// SearchBox is a one-line query box. Every change of its text bumps its
// sequence number and starts the debounce; the screen runs the search when
// Due reports the latest firing, tags the search with Seq and drops any
// result whose sequence is not Current. Owner tells apart the boxes of
// different screens, since the root hands background messages to all.
type SearchBox struct {
	Input   textinput.Model
	owner   string
	seq     int
	focused bool
}

// NewSearchBox returns an empty box for screen owner.
func NewSearchBox(owner, placeholder string) SearchBox {
	in := common.NewInput("")
	in.Prompt = "/ "
	in.Placeholder = placeholder
	in.CharLimit = MaxQuery
	return SearchBox{Input: in, owner: owner}
}

// Focus gives the box the keys.
func (b *SearchBox) Focus() tea.Cmd { b.focused = true; return b.Input.Focus() }

// Focused reports whether the box takes the keys.
func (b *SearchBox) Focused() bool { return b.focused }

// Value is the query.
func (b *SearchBox) Value() string { return b.Input.Value() }

// SetValue replaces the query (a navigation) and makes every earlier
// result stale.
func (b *SearchBox) SetValue(v string) { b.Input.SetValue(v); b.seq++ }

// SetWidth sizes the box to w cells, prompt included.
func (b *SearchBox) SetWidth(w int) { b.Input.Width = max(w-4, 1) }

// Next starts a search: it returns the sequence number its result must
// carry. Results of every earlier one are stale from now on.
func (b *SearchBox) Next() int { b.seq++; return b.seq }

// Current reports whether a result tagged seq is the latest search's.
func (b *SearchBox) Current(seq int) bool { return seq == b.seq }

// Due reports whether msg is this box's debounce for the latest keystroke.
func (b *SearchBox) Due(msg SearchDue) bool { return msg.Owner == b.owner && msg.Seq == b.seq }

// Pending is the debounce message the latest keystroke waits for.
func (b *SearchBox) Pending() SearchDue { return SearchDue{Owner: b.owner, Seq: b.seq} }

// Key feeds a key to the focused box. Esc and enter leave it (done); a
// key that changes the text starts the debounce (a SearchDue after
// DebounceDelay). A paste longer than MaxQuery is cut, with a notice.
func (b *SearchBox) Key(k common.KeyMap, msg tea.KeyMsg) (done bool, cmd tea.Cmd) {
	if key.Matches(msg, k.Cancel, k.Confirm) {
		b.focused = false
		b.Input.Blur()
		return true, nil
	}
	var notice tea.Cmd
	if msg, notice = common.ClampPaste(msg, MaxQuery-len([]rune(b.Input.Value())), "the search box"); msg.Type == tea.KeyRunes && len(msg.Runes) == 0 {
		return false, notice
	}
	before := b.Input.Value()
	b.Input, cmd = b.Input.Update(msg)
	if b.Input.Value() == before {
		return false, tea.Batch(cmd, notice)
	}
	b.seq++
	return false, tea.Batch(cmd, notice, common.After(DebounceDelay, SearchDue{Owner: b.owner, Seq: b.seq}))
}

// View draws the box, or hint in place of an empty unfocused box.
func (b *SearchBox) View(st *common.Styles, hint string) string {
	if !b.focused && b.Input.Value() == "" {
		return st.Subtle.Render(hint)
	}
	return b.Input.View()
}
