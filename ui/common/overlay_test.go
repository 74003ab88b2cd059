package common

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

// TestAnswerKey: y answers yes unless the screen is still writing (then
// the question stays open), n and esc answer no whatever is under way,
// and any other key leaves the question open.
func TestAnswerKey(t *testing.T) {
	k := DefaultKeyMap()
	runes := func(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }
	for _, c := range []struct {
		msg  tea.KeyMsg
		busy bool
		want Answer
	}{
		{runes("y"), false, AnswerYes},
		{runes("y"), true, Unanswered},
		{runes("n"), false, AnswerNo},
		{runes("n"), true, AnswerNo},
		{tea.KeyMsg{Type: tea.KeyEsc}, true, AnswerNo},
		{runes("x"), false, Unanswered},
		{tea.KeyMsg{Type: tea.KeyEnter}, false, Unanswered},
	} {
		if got := AnswerKey(k, c.msg, c.busy); got != c.want {
			t.Errorf("%q busy=%v: %v, want %v", c.msg.String(), c.busy, got, c.want)
		}
	}
	if h := QuestionHelp(k); len(h) != 2 || h[0].Help().Key != "y" || h[1].Help().Key != "n" {
		t.Errorf("question help: %v", h)
	}
}

// TestOverlayBox: the body is drawn in the box w wide, its text within
// OverlayInner, and cut to h lines.
func TestOverlayBox(t *testing.T) {
	st := DefaultStyles()
	body := strings.Repeat("word ", 40)
	out := OverlayBox(st, Wrap(body, OverlayInner(st, 30)), 30, 5)
	lines := strings.Split(out, "\n")
	if len(lines) != 5 {
		t.Errorf("%d lines, want 5 (cut to h):\n%s", len(lines), out)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w != 30 {
			t.Errorf("a line %d wide, want 30: %q", w, l)
		}
	}
}
