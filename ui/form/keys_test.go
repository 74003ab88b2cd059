package form

import (
	"testing"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/memreview/memreview/ui/common"
)

// TestFormKeysDistinct checks that no key means two things in a form's
// multi-line field: the form's keys and those the textarea answers to
// itself (enter is the line break there, so it is left out: Confirm
// applies only from a one-line field).
func TestFormKeysDistinct(t *testing.T) {
	k := common.DefaultKeyMap()
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

// textareaKeys are the keys a focused field answers to itself (for the
// clash test: a form key must not be one of them).
func textareaKeys() []key.Binding {
	k := textarea.DefaultKeyMap
	return []key.Binding{k.CharacterBackward, k.CharacterForward, k.DeleteAfterCursor, k.DeleteBeforeCursor,
		k.DeleteCharacterBackward, k.DeleteCharacterForward, k.DeleteWordBackward, k.DeleteWordForward,
		k.LineEnd, k.LineStart, k.WordBackward, k.WordForward, k.InputBegin, k.InputEnd,
		k.UppercaseWordForward, k.LowercaseWordForward, k.CapitalizeWordForward, k.TransposeCharacterBackward}
}
