package common

// ScreenID names one of the program's screens; its number is the key that
// shows it. The list of screens (names, constructors) is ui.Screens.
type ScreenID int

const (
	ScreenReview       ScreenID = 1 + iota // the review queue
	ScreenBank                             // the bank browser
	ScreenProbes                           // the probe console
	ScreenTrajectories                     // the trajectories
	ScreenEval                             // the eval runs
)

// Navigation is a message that asks the root to show the screen Target
// and then hands the message to it (ShowRecord, ShowProposal,
// ShowTrajectory).
type Navigation interface {
	Target() ScreenID
}

// Target implements Navigation: records show in the bank browser.
func (ShowRecord) Target() ScreenID { return ScreenBank }

// Target implements Navigation: proposals show on the review screen.
func (ShowProposal) Target() ScreenID { return ScreenReview }

// Target implements Navigation.
func (ShowTrajectory) Target() ScreenID { return ScreenTrajectories }
