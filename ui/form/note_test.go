package form_test

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/form"
	"github.com/memreview/memreview/ui/uitest"
)

// TestNoteForm keeps the typed note on enter, clears it on esc and on an
// emptied field, and leaves it alone while typing; its body fits the width
// given, title included.
func TestNoteForm(t *testing.T) {
	k := common.DefaultKeyMap()
	note := "kept"
	f := form.NewNoteForm(note, 30)
	for _, s := range []string{"backspace", " more"} {
		if done, _ := f.UpdateNote(k, uitest.Key(s), &note); done || note != "kept" {
			t.Fatalf("%q: done %v, note %q while typing", s, done, note)
		}
	}
	if done, _ := f.UpdateNote(k, uitest.Key("enter"), &note); !done || note != "kep more" {
		t.Fatalf("enter: done %v, note %q; want the typed note", done, note)
	}
	if done, _ := form.NewNoteForm(note, 30).UpdateNote(k, uitest.Key("esc"), &note); !done || note != "" {
		t.Fatalf("esc: done %v, note %q; want it cleared", done, note)
	}
	note = "x"
	f = form.NewNoteForm(note, 30)
	f.UpdateNote(k, uitest.Key("backspace"), &note)
	if done, _ := f.UpdateNote(k, uitest.Key("enter"), &note); !done || note != "" {
		t.Fatalf("enter on an empty field: done %v, note %q; want it cleared", done, note)
	}
	st := common.DefaultStyles()
	for _, w := range []int{24, 60} {
		body := f.Body(st, w)
		if !strings.Contains(strings.Join(strings.Fields(ansi.Strip(body)), " "), form.NoteTitle) {
			t.Errorf("width %d: no title in %q", w, body)
		}
		for _, l := range strings.Split(body, "\n") {
			if lw := ansi.StringWidth(l); lw > w {
				t.Errorf("width %d: line %q is %d wide", w, ansi.Strip(l), lw)
			}
		}
	}
}

// In a one-line field enter is "apply" in the help, whatever the screen's
// own enter says (the bank's opens a record).
func TestFormHelpSaysEnterApplies(t *testing.T) {
	k := common.DefaultKeyMap()
	k.Confirm.SetHelp("enter", "open")
	for _, b := range form.NewNoteForm("", 30).Help(k) {
		if b.Help().Key == "enter" && b.Help().Desc != "apply" {
			t.Fatalf("the note form's help says enter %q, want apply", b.Help().Desc)
		}
	}
}
