package common

import (
	"slices"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
)

// TestKeysDistinct checks that no key means two things on the review
// screen: the global keys, moving around and the verbs.
func TestKeysDistinct(t *testing.T) {
	k := DefaultKeyMap()
	set := []key.Binding{k.Quit, k.Help, k.Hygiene,
		k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.NextPane, k.Next, k.Prev, k.Raw,
		k.Accept, k.Narrow, k.Merge, k.Delete, k.Reject, k.Edit, k.Defer, k.Undo, k.Probe, k.Filter, k.Search, k.Curate,
		k.Note, k.AcceptNote, k.RejectNote, k.Related, k.Zoom, k.Queue.List, k.Probes.Sideways, k.Probes.Full}
	seen := map[string]string{}
	for _, b := range set {
		for _, s := range b.Keys() {
			if prev, ok := seen[s]; ok {
				t.Errorf("key %q is both %q and %q", s, prev, b.Help().Desc)
			}
			seen[s] = b.Help().Desc
		}
		if b.Help().Key == "" || b.Help().Desc == "" {
			t.Errorf("binding %v has no help", b.Keys())
		}
	}
}

// TestQueueListKeysDistinct checks the queue list's keys against each
// other, the moving keys, the note and the global keys (the screen number
// keys too): while the list shows, they are all live at once.
func TestQueueListKeysDistinct(t *testing.T) {
	k := DefaultKeyMap()
	q := k.Queue
	set := []key.Binding{k.Quit, k.Help, k.Errors, k.Hygiene, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Note,
		q.List, q.Op, q.Env, q.Category, q.Text, q.Clear, q.Mark, q.MarkAll, q.Reject, q.Defer, q.Accept, q.Flagged, q.Open,
		bind("1-4", "screens", "1", "2", "3", "4")}
	seen := map[string]string{}
	for _, b := range set {
		for _, s := range b.Keys() {
			if prev, ok := seen[s]; ok {
				t.Errorf("key %q is both %q and %q", s, prev, b.Help().Desc)
			}
			seen[s] = b.Help().Desc
		}
	}
	// Close shares L with List (L shows and hides the list) and takes esc.
	if !slices.Contains(q.Close.Keys(), "esc") || !slices.Contains(q.Close.Keys(), q.List.Keys()[0]) {
		t.Errorf("close keys %v", q.Close.Keys())
	}
}

// TestProbesKeys: the probes pane's sideways key answers to exactly the
// keys of Left and Right (which tell the direction), and the full text
// closes with esc and with the key that opened it.
func TestProbesKeys(t *testing.T) {
	k := DefaultKeyMap()
	want := append(slices.Clone(k.Left.Keys()), k.Right.Keys()...)
	if got := k.Probes.Sideways.Keys(); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		t.Errorf("sideways keys %v, want Left and Right's %v", got, want)
	}
	for _, s := range append(k.Probes.Full.Keys(), "esc") {
		if !slices.Contains(k.Probes.Close.Keys(), s) {
			t.Errorf("the full text does not close on %q", s)
		}
	}
}

// TestConsoleFullKey: the console's rows-in-full key works while typing,
// so no key of the console or of its textarea input may be it.
func TestConsoleFullKey(t *testing.T) {
	k := DefaultKeyMap()
	c, ta := k.Console, textarea.DefaultKeyMap
	others := []key.Binding{c.Run, c.NewLine, c.Attach, c.AltAttch, c.NextEnv, c.Clear, c.History, c.Edit, c.Blur,
		ta.Paste, ta.LineNext, ta.LinePrevious, ta.InsertNewline, ta.CharacterBackward, ta.CharacterForward,
		ta.DeleteAfterCursor, ta.DeleteBeforeCursor, ta.DeleteCharacterBackward, ta.DeleteCharacterForward,
		ta.DeleteWordBackward, ta.DeleteWordForward, ta.LineEnd, ta.LineStart, ta.WordBackward, ta.WordForward,
		ta.InputBegin, ta.InputEnd, ta.UppercaseWordForward, ta.LowercaseWordForward, ta.CapitalizeWordForward,
		ta.TransposeCharacterBackward}
	for _, b := range others {
		for _, s := range b.Keys() {
			if slices.Contains(c.Full.Keys(), s) {
				t.Errorf("key %q is both rows in full and %v", s, b.Help())
			}
		}
	}
}
