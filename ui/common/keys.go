package common

import "github.com/charmbracelet/bubbles/key"

// KeyMap is the one declaration of every key memreview answers to. Screens
// enable or disable bindings (SetEnabled) so the help shows only what
// applies; matching uses key.Matches, which ignores disabled bindings.
type KeyMap struct {
	// Global (handled by the root).
	Quit   key.Binding
	Help   key.Binding
	Errors key.Binding // !: the last error in full
	// H: run hygiene in the background; its proposals join the queue
	// (ui/hygiene.go).
	Hygiene key.Binding
	// The number keys that switch screens come from the registry
	// (ui.Screens).

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
	Note                          key.Binding // N: a note for the next decision
	// A and R: the note, then accept or reject with it, in one step.
	AcceptNote, RejectNote key.Binding
	// o: the candidate pane's related records, wherever it is scrolled.
	Related key.Binding
	Zoom    key.Binding // z: the focused pane takes the whole screen

	// Inside pickers and forms.
	Toggle, Confirm, Cancel key.Binding
	Yes, No                 key.Binding
	NextField, PrevField    key.Binding
	Form                    FormKeys

	// The keys only one screen has.
	Bank    BankKeys
	Console ConsoleKeys
	Trajs   TrajKeys
	Eval    EvalKeys
	Queue   QueueKeys
	Probes  ProbesKeys
}

// ProbesKeys are the review screen's keys for its focused probes pane
// (ui/queue/probes.go, probefull.go).
type ProbesKeys struct {
	// ←/→ (h/l): scroll the pane's tables sideways (they are laid out at
	// their content's width); on only when one is wider than the pane.
	// Left and Right tell the direction.
	Sideways key.Binding
	Full     key.Binding // enter: every probe's input, error and rows in full, scrollable
	Close    key.Binding // esc (or enter): close the full text
}

// QueueKeys are the review screen's queue list (L) and its keys while it
// is open (ui/queue/queuelist.go).
type QueueKeys struct {
	List     key.Binding // L: show or hide the list of every open proposal
	Op       key.Binding // o: cycle the op filter
	Env      key.Binding // e: cycle the env filter
	Category key.Binding // c: cycle the category filter
	Text     key.Binding // /: type a text filter
	Clear    key.Binding // x: clear every filter
	Mark     key.Binding // space: mark the row, the cursor staying on it
	MarkAll  key.Binding // *: mark every row shown (again: unmark them)
	Reject   key.Binding // r: reject the marked proposals, after y/n
	Defer    key.Binding // s: defer the marked proposals, after y/n
	Accept   key.Binding // a: accept the marked proposals, after y/n (flagged ones left out)
	Flagged  key.Binding // F: show only the proposals the poisoning screen flagged (again: all)
	Open     key.Binding // enter: review the proposal under the cursor
	Close    key.Binding // esc (or L): back to the panes
}

// FormKeys are the keys the record forms add (form.Form): the edit,
// narrow and merge forms of the review and bank screens.
type FormKeys struct {
	Save key.Binding // ctrl+s: apply from any field (enter does from a one-line field)
	// alt+1 … alt+9: jump to the form's first … ninth field (the edit
	// form's checks are alt+7, six tabs away).
	Jump       key.Binding
	NewLine    key.Binding // enter in a multi-line field (lemma, steps, checks): a line break
	KeepExpect key.Binding // ctrl+x in the checks field: keep or drop the expected output of the check under the cursor
	MoveLine   key.Binding // alt+↑/alt+↓ in a multi-line field: move the line under the cursor (reorder steps, checks)
}

// BankKeys are the keys the bank browser adds.
type BankKeys struct {
	Retrieve key.Binding // R: retrieval preview
	Verify   key.Binding // v: re-run the record's checks live
	Mark     key.Binding // space: mark a row for merging
	Clear    key.Binding // x: clear the query and every facet filter
	Worth    key.Binding // w: sort by worth (best first, worst first, index order)
	// b: take the last verify's output of a suspect record's failing
	// checks as their expected result, after a y/n that shows both.
	Rebaseline key.Binding
}

// ConsoleKeys are the keys the probe console adds.
type ConsoleKeys struct {
	Run      key.Binding // enter: run the input
	NewLine  key.Binding // alt+enter: a line break in the input
	Attach   key.Binding // A (input blurred) or alt+a: attach the last result
	NextEnv  key.Binding // tab or ctrl+e: next environment
	Clear    key.Binding // ctrl+u: clear the input
	History  key.Binding // ↑/↓ in the input: earlier inputs
	Edit     key.Binding // i or /: back to the input
	Blur     key.Binding // esc: leave the input, keys scroll the result
	AltAttch key.Binding // alt+a while typing
	// ctrl+o, typing or not: show the result's rows in full (a "column:
	// value" line per cell, wrapped) instead of the table, and back.
	Full key.Binding
}

// EvalKeys are the keys the Eval screen adds.
type EvalKeys struct {
	Tasks     key.Binding // enter on a run: its task runs
	Open      key.Binding // enter on a task run: its transcript on the trajectories screen
	Back      key.Binding // esc: back to the runs
	Condition key.Binding // c: cycle the task runs' condition filter
}

// TrajKeys are the keys the trajectories screen adds.
type TrajKeys struct {
	Outcome key.Binding // o: cycle the outcome filter
	Env     key.Binding // f: cycle the env filter
	Open    key.Binding // enter: open the record the selected step produced
	Whole   key.Binding // x: the selected step in full (its long results are cut to a few lines)
}

func bind(help string, desc string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

// DefaultKeyMap returns memreview's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Quit:   bind("q", "quit", "q", "ctrl+c"),
		Help:   bind("?", "help", "?"),
		Errors: bind("!", "error", "!"),
		// H, not a letter a screen uses: the root takes it before the screen.
		Hygiene: bind("H", "hygiene", "H"),

		Up:       bind("↑/k", "up", "up", "k"),
		Down:     bind("↓/j", "down", "down", "j"),
		Left:     bind("←/h", "left", "left", "h"),
		Right:    bind("→/l", "right", "right", "l"),
		PageUp:   bind("pgup", "page up", "pgup", "ctrl+u"),
		PageDown: bind("pgdn", "page down", "pgdown", "ctrl+d"),
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
		Probe:  bind("p", "run live", "p"),
		Filter: bind("f", "filter", "f"),
		Search: bind("/", "search", "/"),
		Curate: bind("c", "curate", "c"),
		Note:   bind("N", "note", "N"),
		// Shifted a and r: the verb, with a note asked first.
		AcceptNote: bind("A", "accept+note", "A"),
		RejectNote: bind("R", "reject+note", "R"),
		Related:    bind("o", "related", "o"),
		Zoom:       bind("z", "zoom pane", "z"),

		Toggle:    bind("space", "toggle", " "),
		Confirm:   bind("enter", "apply", "enter"),
		Cancel:    bind("esc", "cancel", "esc"),
		Yes:       bind("y", "yes", "y"),
		No:        bind("n", "no", "n"),
		NextField: bind("tab", "next field", "tab", "down"),
		PrevField: bind("shift+tab", "prev field", "shift+tab", "up"),
		Form: FormKeys{
			Save:       bind("ctrl+s", "save", "ctrl+s"),
			Jump:       bind("alt+1-9", "to field", "alt+1", "alt+2", "alt+3", "alt+4", "alt+5", "alt+6", "alt+7", "alt+8", "alt+9"),
			NewLine:    bind("enter", "new line", "enter"),
			KeepExpect: bind("ctrl+x", "keep/drop expect", "ctrl+x"),
			MoveLine:   bind("alt+↑/↓", "move line", "alt+up", "alt+down"),
		},

		Bank: BankKeys{
			Retrieve: bind("R", "retrieval preview", "R"),
			Verify:   bind("v", "verify checks", "v"),
			Mark:     bind("space", "mark for merge", " "),
			Clear:    bind("x", "clear filters", "x"),
			Worth:    bind("w", "sort by worth", "w"),
			// b, a letter no other bank key or global key takes.
			Rebaseline: bind("b", "re-baseline checks", "b"),
		},
		Console: ConsoleKeys{
			Run:      bind("enter", "run probe", "enter"),
			NewLine:  bind("alt+enter", "new line", "alt+enter"),
			Attach:   bind("A", "attach result", "A"),
			AltAttch: bind("alt+a", "attach result", "alt+a"),
			NextEnv:  bind("tab", "next env", "tab", "ctrl+e"),
			Clear:    bind("ctrl+u", "clear", "ctrl+u"),
			History:  bind("↑/↓", "history", "up", "down"),
			Edit:     bind("i", "type a probe", "i", "/", "enter"),
			Blur:     bind("esc", "scroll result", "esc"),
			Full:     bind("ctrl+o", "rows in full", "ctrl+o"),
		},
		Queue: QueueKeys{
			List:     bind("L", "queue", "L"),
			Op:       bind("o", "op filter", "o"),
			Env:      bind("e", "env filter", "e"),
			Category: bind("c", "category filter", "c"),
			Text:     bind("/", "text filter", "/"),
			Clear:    bind("x", "clear filters", "x"),
			Mark:     bind("space", "mark", " "),
			MarkAll:  bind("*", "mark all shown", "*"),
			Reject:   bind("r", "reject marked", "r"),
			Defer:    bind("s", "defer marked", "s"),
			Accept:   bind("a", "accept marked", "a"),
			Flagged:  bind("F", "flagged only", "F"),
			Open:     bind("enter", "review it", "enter"),
			Close:    bind("esc", "back to panes", "esc", "L"),
		},
		Probes: ProbesKeys{
			Sideways: bind("←/→", "sideways", "left", "right", "h", "l"),
			Full:     bind("enter", "full text", "enter"),
			Close:    bind("esc", "close", "esc", "enter"),
		},
		Eval: EvalKeys{
			Tasks:     bind("enter", "task runs", "enter"),
			Open:      bind("enter", "open transcript", "enter"),
			Back:      bind("esc", "back to runs", "esc"),
			Condition: bind("c", "condition filter", "c"),
		},
		Trajs: TrajKeys{
			Outcome: bind("o", "outcome", "o"),
			Env:     bind("f", "env", "f"),
			Open:    bind("enter", "open record", "enter"),
			Whole:   bind("x", "whole step", "x"),
		},
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
		{k.Help, k.Quit},
	}
}

// Bindings adapts a list of bindings to help.KeyMap, for rendering a
// screen's ShortHelp with the help bubble.
type Bindings []key.Binding

// ShortHelp implements help.KeyMap.
func (b Bindings) ShortHelp() []key.Binding { return b }

// FullHelp implements help.KeyMap.
func (b Bindings) FullHelp() [][]key.Binding { return [][]key.Binding{b} }
