package common

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
)

// SearchKey feeds one key to a focused search box (the bank's and the
// trajectories screen's /). Esc and enter leave the box: done is true and
// the box is blurred. Otherwise the key edits the box, and changed says
// whether the query text changed, so the screen can start its debounce.
func SearchKey(k KeyMap, msg tea.KeyMsg, box *textinput.Model) (done, changed bool, cmd tea.Cmd) {
	if key.Matches(msg, k.Cancel, k.Confirm) {
		box.Blur()
		return true, false, nil
	}
	before := box.Value()
	*box, cmd = box.Update(msg)
	return false, box.Value() != before, cmd
}
