package form

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/memreview/memreview/ui/common"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/mattn/go-runewidth"
	"github.com/rivo/uniseg"
)

// TextField is one field of a Form: a bubbles textarea that wraps its text
// at the width it is given and grows with it to MaxRows rows, then scrolls
// to the cursor. A multi-line field (lemma, steps, checks) takes enter as
// a line break; a one-line field leaves enter to the form and turns pasted
// line breaks into spaces. Pasted or typed text is made printable first
// (Printable: an escape sequence or control character shows as \xNN, never
// reaches the terminal) and cut to the field's limit with a notice.
//
// Blurred, it draws its text from the first character, so a long value the
// cursor left at its end still shows its start.
type TextField struct {
	ta      textarea.Model
	multi   bool
	limit   int // the most runes it holds
	focused bool
	width   int
	maxRows int
	rows    int      // rows the text takes wrapped at width
	still   []string // the blurred view's lines, at width and maxRows
}

// NewTextField returns a field holding value (made printable), its cursor
// at the end (typing adds to the text, as in a one-line input), blurred. limit is the most runes it takes (0: MaxField).
func NewTextField(value string, multi bool, limit int) *TextField {
	if limit <= 0 {
		limit = MaxField
	}
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = ""
	ta.CharLimit = limit
	ta.MaxHeight = 0 // no cap on lines: SetSize caps the rows shown
	ta.KeyMap.Paste.SetEnabled(false)
	ta.KeyMap.InsertNewline = common.DefaultKeyMap().Form.NewLine
	ta.KeyMap.InsertNewline.SetEnabled(multi)
	// Up and down move between lines of a multi-line field (the form takes
	// them at its first and last row); a one-line field leaves them to it.
	ta.KeyMap.LineNext.SetEnabled(multi)
	ta.KeyMap.LinePrevious.SetEnabled(multi)
	ta.FocusedStyle.CursorLine = lipgloss.NewStyle()
	ta.BlurredStyle.CursorLine = lipgloss.NewStyle()
	ta.FocusedStyle.Base = lipgloss.NewStyle()
	ta.BlurredStyle.Base = lipgloss.NewStyle()
	ta.Cursor.SetMode(cursor.CursorStatic)
	ta.Blur()
	f := &TextField{ta: ta, multi: multi, limit: limit, width: 20, maxRows: 1}
	f.ta.SetWidth(f.width)
	f.SetValue(value)
	return f
}

// Multi reports whether enter breaks the line in this field.
func (f *TextField) Multi() bool { return f.multi }

// SetValue replaces the text (made printable; one line unless Multi) and
// puts the cursor at its end.
func (f *TextField) SetValue(s string) {
	s = f.clean(s)
	if r := []rune(s); len(r) > f.limit {
		s = string(r[:f.limit])
	}
	f.ta.SetValue(s)
	f.refit()
}

// SetPlaceholder sets the text an empty field shows.
func (f *TextField) SetPlaceholder(s string) { f.ta.Placeholder = s; f.refit() }

// Value is the field's text as typed.
func (f *TextField) Value() string { return f.ta.Value() }

// Line is the index of the line (logical, not wrapped) the cursor is on.
func (f *TextField) Line() int { return f.ta.Line() }

// Focus gives the field the keys.
func (f *TextField) Focus() tea.Cmd {
	f.focused = true
	cmd := f.ta.Focus()
	f.refit()
	return cmd
}

// Blur takes the keys away; the field then shows its text from the start.
func (f *TextField) Blur() {
	f.focused = false
	f.ta.Blur()
}

// Focused reports whether the field takes the keys.
func (f *TextField) Focused() bool { return f.focused }

// SetSize fits the field to w cells and at most maxRows rows.
func (f *TextField) SetSize(w, maxRows int) {
	w, maxRows = max(w, 2), max(maxRows, 1)
	if w == f.width && maxRows == f.maxRows {
		return
	}
	f.width, f.maxRows = w, maxRows
	f.ta.SetWidth(w)
	f.refit()
}

// Rows is how many rows the field draws: its wrapped text, up to MaxRows.
func (f *TextField) Rows() int { return min(f.rows, f.maxRows) }

// WantRows is how many rows the wrapped text takes.
func (f *TextField) WantRows() int { return f.rows }

// OnFirstRow and OnLastRow report whether the cursor is on the field's
// first or last wrapped row (↑ and ↓ then leave the field).
func (f *TextField) OnFirstRow() bool { return f.ta.Line() == 0 && f.ta.LineInfo().RowOffset == 0 }

// OnLastRow: see OnFirstRow.
func (f *TextField) OnLastRow() bool {
	li := f.ta.LineInfo()
	return f.ta.Line() == f.ta.LineCount()-1 && li.RowOffset >= li.Height-1
}

// MoveLine moves the line under the cursor delta lines down (up when
// negative), the cursor with it, as far as the first or last line.
func (f *TextField) MoveLine(delta int) {
	lines := strings.Split(f.ta.Value(), "\n")
	r := f.ta.Line()
	to := min(max(r+delta, 0), len(lines)-1)
	if to == r {
		return
	}
	li := f.ta.LineInfo()
	col := li.StartColumn + li.ColumnOffset
	line := lines[r]
	lines = append(lines[:r], lines[r+1:]...)
	lines = append(lines[:to], append([]string{line}, lines[to:]...)...)
	f.ta.SetValue(strings.Join(lines, "\n"))
	for f.ta.Line() > to {
		f.ta.CursorUp()
	}
	f.ta.SetCursor(col)
	f.refit()
}

// Update feeds a key to the focused field. Runes are made printable and
// cut to the room the field has left; when a paste was cut the Cmd says so
// in the footer, naming the field as label.
func (f *TextField) Update(msg tea.KeyMsg, label string) tea.Cmd {
	var notice tea.Cmd
	if msg.Type == tea.KeyRunes {
		runes := []rune(f.clean(string(msg.Runes)))
		room := max(f.limit-len([]rune(f.ta.Value())), 0)
		if cut := len(runes) - room; cut > 0 {
			runes = runes[:room]
			notice = common.Notify(fmt.Sprintf("pasted text cut: the %s field took %d more characters; %d left out", label, room, cut))
		}
		if len(runes) == 0 {
			return notice
		}
		msg.Runes = runes
	}
	var cmd tea.Cmd
	f.ta, cmd = f.ta.Update(msg)
	f.refit()
	return tea.Batch(cmd, notice)
}

// clean makes s printable for the field: one line unless multi.
func (f *TextField) clean(s string) string {
	if f.multi {
		return common.Printable(s)
	}
	return common.PrintableLine(s)
}

// refit sets the textarea's height to the rows its text takes (up to
// maxRows). While the text fits, the textarea is rebuilt at the same
// cursor so that its view starts at the first row (it keeps the offset it
// scrolled to while it was shorter); when it does not, it is given its text
// (View) and asked to bring the cursor into sight (Update with no message).
func (f *TextField) refit() {
	f.rows = 0
	for _, line := range strings.Split(f.ta.Value(), "\n") {
		f.rows += wrappedRows([]rune(line), f.ta.Width())
	}
	f.ta.SetHeight(f.Rows())
	if f.rows > f.maxRows {
		if f.focused {
			_ = f.ta.View()
			f.ta, _ = f.ta.Update(nil)
		}
	} else if f.focused {
		row, li := f.ta.Line(), f.ta.LineInfo()
		col := li.StartColumn + li.ColumnOffset
		f.ta.SetValue(f.ta.Value())
		for f.ta.Line() > row {
			f.ta.CursorUp()
		}
		f.ta.SetCursor(col)
	}
	f.still = nil
}

// View draws the field, Rows rows of its width.
func (f *TextField) View() string {
	if f.focused {
		return f.ta.View()
	}
	if f.still == nil {
		f.still = f.stillLines()
	}
	return strings.Join(f.still, "\n")
}

// stillLines is the blurred view: the first Rows rows of the wrapped text,
// the last ending in … when more follow.
func (f *TextField) stillLines() []string {
	v := f.ta.Value()
	if v == "" && f.ta.Placeholder != "" {
		return []string{ansi.Truncate(f.ta.Placeholder, f.width, "…")}
	}
	var rows []string
	for _, line := range strings.Split(v, "\n") {
		for _, r := range wrap([]rune(line), f.ta.Width()) {
			rows = append(rows, strings.TrimRight(string(r), " "))
		}
		if len(rows) > f.maxRows {
			break
		}
	}
	if len(rows) > f.maxRows {
		rows = rows[:f.maxRows]
		last := rows[len(rows)-1]
		rows[len(rows)-1] = ansi.Truncate(last, f.width-1, "") + "…"
	}
	return rows
}

// wrappedRows is how many rows the textarea wraps line into at width.
func wrappedRows(line []rune, width int) int { return len(wrap(line, width)) }

// wrap is the textarea's soft wrap (bubbles v1 textarea.wrap, which is not
// exported), so that the field knows how many rows its text takes and
// draws its blurred view as the focused one wraps.
func wrap(runes []rune, width int) [][]rune {
	var (
		lines  = [][]rune{{}}
		word   = []rune{}
		row    int
		spaces int
	)
	for _, r := range runes {
		if unicode.IsSpace(r) {
			spaces++
		} else {
			word = append(word, r)
		}
		if spaces > 0 {
			if uniseg.StringWidth(string(lines[row]))+uniseg.StringWidth(string(word))+spaces > width {
				row++
				lines = append(lines, []rune{})
			}
			lines[row] = append(lines[row], word...)
			lines[row] = append(lines[row], []rune(strings.Repeat(" ", spaces))...)
			spaces, word = 0, nil
		} else {
			lastCharLen := runewidth.RuneWidth(word[len(word)-1])
			if uniseg.StringWidth(string(word))+lastCharLen > width {
				if len(lines[row]) > 0 {
					row++
					lines = append(lines, []rune{})
				}
				lines[row] = append(lines[row], word...)
				word = nil
			}
		}
	}
	if uniseg.StringWidth(string(lines[row]))+uniseg.StringWidth(string(word))+spaces >= width {
		lines = append(lines, []rune{})
		lines[row+1] = append(lines[row+1], word...)
	} else {
		lines[row] = append(lines[row], word...)
	}
	return lines
}
