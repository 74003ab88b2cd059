package common

import (
	"testing"

	"github.com/charmbracelet/bubbles/key"
)

// TestKeysDistinct checks that no key means two things on the review
// screen: the global keys, moving around and the verbs.
func TestKeysDistinct(t *testing.T) {
	k := DefaultKeyMap()
	set := []key.Binding{k.Quit, k.Help, k.Hygiene,
		k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.NextPane, k.Next, k.Prev, k.Raw,
		k.Accept, k.Narrow, k.Merge, k.Delete, k.Reject, k.Edit, k.Defer, k.Undo, k.Probe, k.Filter, k.Search, k.Curate}
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

// TestFormKeysDistinct checks that no key means two things in a form's
// multi-line field: the form's keys and those the textarea answers to
// itself (enter is the line break there, so it is left out: Confirm
// applies only from a one-line field).
func TestFormKeysDistinct(t *testing.T) {
	k := DefaultKeyMap()
	set := append([]key.Binding{k.Cancel, k.NextField, k.PrevField, k.Form.Save, k.Form.NewLine, k.Form.KeepExpect, k.Form.MoveLine}, textareaKeys()...)
	seen := map[string]string{}
	for _, b := range set {
		for _, s := range b.Keys() {
			if prev, ok := seen[s]; ok && s != "up" && s != "down" {
				t.Errorf("key %q is both %q and %q", s, prev, b.Help().Desc)
			}
			seen[s] = b.Help().Desc
		}
	}
}
