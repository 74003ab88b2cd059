package common

import (
	"fmt"
	"slices"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
)

// NewInput returns a one-line text input holding value, with no prompt and
// a cursor that does not blink (nothing ticks while a form is open).
func NewInput(value string) textinput.Model {
	ti := textinput.New()
	ti.Prompt = ""
	ti.Cursor.SetMode(cursor.CursorStatic)
	ti.SetValue(value)
	return ti
}

// ClampPaste cuts a pasted or typed run of runes to the room a one-line
// input has left (its cap less what it holds) and turns line breaks and
// tabs into spaces, so a 100 KB paste is absorbed as one short edit. When
// it cut anything the Cmd says so in the footer, naming field.
func ClampPaste(msg tea.KeyMsg, room int, field string) (tea.KeyMsg, tea.Cmd) {
	if msg.Type != tea.KeyRunes || len(msg.Runes) <= 1 {
		return msg, nil
	}
	room = max(room, 0)
	cut := max(len(msg.Runes)-room, 0)
	runes := slices.Clone(msg.Runes[:len(msg.Runes)-cut])
	for i, r := range runes {
		if r == '\n' || r == '\r' || r == '\t' {
			runes[i] = ' '
		}
	}
	msg.Runes = runes
	if cut == 0 {
		return msg, nil
	}
	return msg, Notify(fmt.Sprintf("pasted text cut: %s took %d more characters; %d left out", field, room, cut))
}
