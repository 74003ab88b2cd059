package common

import "github.com/charmbracelet/lipgloss"

// Palette: every colour memreview uses, light/dark adaptive. Under NO_COLOR
// (or a non-colour terminal) lipgloss drops the colours; the styles that
// carry meaning also use bold, underline, reverse or a text marker, so
// nothing depends on colour alone.
var (
	colSubtle  = lipgloss.AdaptiveColor{Light: "#8A8A8A", Dark: "#6C6C6C"}
	colText    = lipgloss.AdaptiveColor{Light: "#1A1A1A", Dark: "#DDDDDD"}
	colAccent  = lipgloss.AdaptiveColor{Light: "#5A3FC0", Dark: "#9D8CFF"}
	colGood    = lipgloss.AdaptiveColor{Light: "#1B7F3A", Dark: "#5FD787"}
	colBad     = lipgloss.AdaptiveColor{Light: "#B3261E", Dark: "#FF6B6B"}
	colWarn    = lipgloss.AdaptiveColor{Light: "#9A6700", Dark: "#E5C07B"}
	colMark    = lipgloss.AdaptiveColor{Light: "#FFF3B0", Dark: "#3A3520"}
	colBorder  = lipgloss.AdaptiveColor{Light: "#C0C0C0", Dark: "#444444"}
	colFocused = lipgloss.AdaptiveColor{Light: "#5A3FC0", Dark: "#9D8CFF"}
)

// Styles is the one set of styles every screen draws with.
type Styles struct {
	App      lipgloss.Style // the whole frame
	Header   lipgloss.Style // top bar
	Tab      lipgloss.Style // an inactive tab (see TabLabel)
	TabOn    lipgloss.Style // the active tab
	Footer   lipgloss.Style
	Status   lipgloss.Style // transient footer message
	Error    lipgloss.Style // failure text
	Notice   lipgloss.Style // an informational banner (sample world, …)
	Banner   lipgloss.Style // a warning banner (conflict)
	Pane     lipgloss.Style // a pane's frame
	PaneOn   lipgloss.Style // the focused pane's frame
	Title    lipgloss.Style // a pane title
	Label    lipgloss.Style // field names
	Subtle   lipgloss.Style // secondary text
	Text     lipgloss.Style
	Good     lipgloss.Style // pass, same, added lines
	Bad      lipgloss.Style // fail, fails now, removed lines
	Warn     lipgloss.Style // changed, env changed
	Added    lipgloss.Style // "+ " diff lines
	Removed  lipgloss.Style // "- " diff lines
	Marked   lipgloss.Style // highlighted (the cited step range)
	Flagged  lipgloss.Style // a span the poisoning screen flagged (also bracketed [!…!] in the text)
	Badge    lipgloss.Style // the op badge
	Selected lipgloss.Style // the cursor row in a picker
	Input    lipgloss.Style // a text input's frame
	Overlay  lipgloss.Style // help, pickers and forms drawn over a screen
}

// DefaultStyles returns memreview's styles.
func DefaultStyles() *Styles {
	border := lipgloss.RoundedBorder()
	return &Styles{
		App:      lipgloss.NewStyle(),
		Header:   lipgloss.NewStyle().Foreground(colText).Bold(true),
		Tab:      lipgloss.NewStyle().Foreground(colSubtle),
		TabOn:    lipgloss.NewStyle().Foreground(colAccent).Bold(true),
		Footer:   lipgloss.NewStyle().Foreground(colSubtle),
		Status:   lipgloss.NewStyle().Foreground(colGood),
		Error:    lipgloss.NewStyle().Foreground(colBad).Bold(true),
		Notice:   lipgloss.NewStyle().Foreground(colWarn),
		Banner:   lipgloss.NewStyle().Foreground(colBad).Bold(true),
		Pane:     lipgloss.NewStyle().Border(border).BorderForeground(colBorder).Padding(0, 1),
		PaneOn:   lipgloss.NewStyle().Border(lipgloss.ThickBorder()).BorderForeground(colFocused).Padding(0, 1),
		Title:    lipgloss.NewStyle().Foreground(colAccent).Bold(true),
		Label:    lipgloss.NewStyle().Foreground(colSubtle),
		Subtle:   lipgloss.NewStyle().Foreground(colSubtle),
		Text:     lipgloss.NewStyle().Foreground(colText),
		Good:     lipgloss.NewStyle().Foreground(colGood),
		Bad:      lipgloss.NewStyle().Foreground(colBad).Bold(true),
		Warn:     lipgloss.NewStyle().Foreground(colWarn),
		Added:    lipgloss.NewStyle().Foreground(colGood),
		Removed:  lipgloss.NewStyle().Foreground(colBad),
		Marked:   lipgloss.NewStyle().Background(colMark).Bold(true),
		Flagged:  lipgloss.NewStyle().Foreground(colBad).Bold(true).Underline(true),
		Badge:    lipgloss.NewStyle().Foreground(colAccent).Bold(true).Reverse(true).Padding(0, 1),
		Selected: lipgloss.NewStyle().Foreground(colAccent).Bold(true),
		Input:    lipgloss.NewStyle().Border(lipgloss.NormalBorder()).BorderForeground(colBorder),
		Overlay:  lipgloss.NewStyle().Border(border).BorderForeground(colFocused).Padding(0, 1),
	}
}

// TabLabel renders one tab label. The active tab is bracketed as well as
// styled, so it stands out under NO_COLOR, where lipgloss drops every
// attribute.
func (s *Styles) TabLabel(text string, active bool) string {
	if active {
		return s.TabOn.Render("[" + text + "]")
	}
	return s.Tab.Render(" " + text + " ")
}
