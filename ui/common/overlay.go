package common

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// What the screens' overlays (the forms, pickers and questions the bank
// and review screens open over themselves) share: the box they are drawn
// in and the y/n question. Each screen keeps its own overlay interface,
// over its own model.

// OverlayBox draws an overlay's body in the overlay box, w wide and at
// most h high.
func OverlayBox(st *Styles, body string, w, h int) string {
	o := st.Overlay
	return o.Width(max(w-o.GetHorizontalBorderSize(), 1)).MaxHeight(max(h, 0)).Render(body)
}

// OverlayInner is the width inside an overlay box w wide.
func OverlayInner(st *Styles, w int) int { return w - st.Overlay.GetHorizontalFrameSize() }

// Answer is what a key does to a y/n question.
type Answer int

const (
	// Unanswered: the question stays open (another key, or y while the
	// screen is still writing its last decision).
	Unanswered Answer = iota
	// AnswerYes: y, with no write under way.
	AnswerYes
	// AnswerNo: n or esc.
	AnswerNo
)

// AnswerKey reads msg as the answer to a y/n question asked before a
// verb that writes: y is yes unless busy (the screen is still writing,
// and y waits for it), n and esc are no.
func AnswerKey(k KeyMap, msg tea.KeyMsg, busy bool) Answer {
	switch {
	case key.Matches(msg, k.Yes):
		if busy {
			return Unanswered
		}
		return AnswerYes
	case key.Matches(msg, k.No), key.Matches(msg, k.Cancel):
		return AnswerNo
	}
	return Unanswered
}

// QuestionHelp is a y/n question's keys.
func QuestionHelp(k KeyMap) []key.Binding { return []key.Binding{k.Yes, k.No} }

// Overlay is a form, picker or question a screen opens over itself; M is
// the screen's model. While open it gets every key (Update returns nil
// when it closes), draws itself in the screen's body (View) and says its
// keys (Help). Capturing: it takes text, so global keys go to it too.
// SetWidth: the overlay box's inner width changed (text inputs fit it).
type Overlay[M any] interface {
	Update(m M, msg tea.KeyMsg) (Overlay[M], tea.Cmd)
	View(m M, width, height int) string
	Help(k KeyMap) []key.Binding
	Capturing() bool
	SetWidth(inner int)
}

// Question is embedded in a y/n question's overlay: its keys are y and
// n, it takes no text and it has no input to fit.
type Question struct{}

// Help is a question's keys (QuestionHelp).
func (Question) Help(k KeyMap) []key.Binding { return QuestionHelp(k) }

// Capturing is false: a question takes no text.
func (Question) Capturing() bool { return false }

// SetWidth does nothing: a question has no input to fit.
func (Question) SetWidth(int) {}
