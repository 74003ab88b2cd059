package common

import "github.com/charmbracelet/bubbles/key"

// KeyMap is the one declaration of every key memreview answers to. Screens
// enable or disable bindings (SetEnabled) so the help shows only what
// applies; matching uses key.Matches, which ignores disabled bindings.
type KeyMap struct {
	// Global (handled by the root).
	Quit   key.Binding
	Help   key.Binding
	Screen [4]key.Binding // 1 review, 2 bank, 3 probes, 4 trajectories

	// Moving around.
	Up, Down         key.Binding
	Left, Right      key.Binding
	PageUp, PageDown key.Binding
	Top, Bottom      key.Binding
	NextPane         key.Binding
	Next, Prev       key.Binding
	Raw              key.Binding

	// Review verbs.
	Accept, Narrow, Merge, Delete key.Binding
	Reject, Edit, Defer, Undo     key.Binding
	Probe, Filter, Search         key.Binding
	Curate                        key.Binding // run the LLM curator on a trajectory

	// Bank browser and probe console.
	Attach   key.Binding // attach the last probe result as evidence
	Verify   key.Binding // re-run a record's checks
	Retrieve key.Binding // retrieval preview
	Mark     key.Binding // mark a row for merging (space: match it before PageDown)

	// Inside pickers and forms.
	Toggle, Confirm, Cancel key.Binding
	Yes, No                 key.Binding
	NextField, PrevField    key.Binding
}

func bind(help string, desc string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

// DefaultKeyMap returns memreview's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Quit: bind("q", "quit", "q", "ctrl+c"),
		Help: bind("?", "help", "?"),
		Screen: [4]key.Binding{
			bind("1", "review", "1"),
			bind("2", "bank", "2"),
			bind("3", "probes", "3"),
			bind("4", "trajectories", "4"),
		},

		Up:       bind("↑/k", "up", "up", "k"),
		Down:     bind("↓/j", "down", "down", "j"),
		Left:     bind("←/h", "left", "left", "h"),
		Right:    bind("→/l", "right", "right", "l"),
		PageUp:   bind("pgup", "page up", "pgup", "ctrl+u"),
		PageDown: bind("pgdn", "page down", "pgdown", "ctrl+d", " "),
		Top:      bind("g", "top", "g", "home"),
		Bottom:   bind("G", "bottom", "G", "end"),
		NextPane: bind("tab", "pane", "tab"),
		Next:     bind("]", "next", "]"),
		Prev:     bind("[", "prev", "["),
		Raw:      bind("t", "raw steps", "t"),

		Accept: bind("a", "accept", "a"),
		Narrow: bind("n", "narrow", "n"),
		Merge:  bind("m", "merge", "m"),
		Delete: bind("d", "delete", "d"),
		Reject: bind("r", "reject", "r"),
		Edit:   bind("e", "edit", "e"),
		Defer:  bind("s", "defer", "s"),
		Undo:   bind("u", "undo", "u"),
		Probe:  bind("p", "re-probe", "p"),
		Filter: bind("f", "filter", "f"),
		Search: bind("/", "search", "/"),
		Curate: bind("c", "curate", "c"),

		Attach:   bind("A", "attach result", "A"),
		Verify:   bind("v", "verify checks", "v"),
		Retrieve: bind("R", "retrieval preview", "R"),
		Mark:     bind("space", "mark", " "),

		Toggle:    bind("space", "toggle", " "),
		Confirm:   bind("enter", "apply", "enter"),
		Cancel:    bind("esc", "cancel", "esc"),
		Yes:       bind("y", "yes", "y"),
		No:        bind("n", "no", "n"),
		NextField: bind("tab", "next field", "tab", "down"),
		PrevField: bind("shift+tab", "prev field", "shift+tab", "up"),
	}
}

// ShortHelp implements help.KeyMap with the global keys; screens prepend
// their own (Screen.ShortHelp).
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Help, k.Quit}
}

// FullHelp implements help.KeyMap.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.NextPane, k.Next, k.Prev, k.Raw, k.Filter, k.Probe, k.Curate},
		{k.Accept, k.Narrow, k.Merge, k.Delete, k.Reject, k.Edit, k.Defer, k.Undo},
		{k.Screen[0], k.Screen[1], k.Screen[2], k.Screen[3], k.Help, k.Quit},
	}
}

// Bindings adapts a list of bindings to help.KeyMap, for rendering a
// screen's ShortHelp with the help bubble.
type Bindings []key.Binding

// ShortHelp implements help.KeyMap.
func (b Bindings) ShortHelp() []key.Binding { return b }

// FullHelp implements help.KeyMap.
func (b Bindings) FullHelp() [][]key.Binding { return [][]key.Binding{b} }
