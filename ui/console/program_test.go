package console_test

import (
	"context"
	"fmt"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// startConsole starts the real program (ui.New) at w×h, waits for the
// review screen's first proposal, which is then the operator's focus, and
// shows the console (3).
func startConsole(t *testing.T, deps common.Deps, w, h int) (*teatest.TestModel, []review.Proposal) {
	t.Helper()
	queue, err := deps.Service.Queue()
	if err != nil || len(queue) < 2 {
		t.Fatalf("the sample queue: %d proposals, %v", len(queue), err)
	}
	tm := uitest.Start(t, ui.New(deps), w, h)
	uitest.WaitFor(t, tm, "Candidate "+queue[0].ID)
	tm.Type("3")
	uitest.WaitFor(t, tm, "[shop sql]", "attach → proposal "+queue[0].ID)
	return tm, queue
}

// attachedRun fails the test unless the probe runs attached to kind id
// hold one of input by the tester that matches want (when want is not
// nil).
func attachedRun(t *testing.T, s *app.Service, kind, id, input string, want *probe.Result) {
	t.Helper()
	runs, err := s.ProbeRunsFor(kind, id)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.Result.Input == input && r.Actor == "tester" && (want == nil || probe.Compare(*want, r.Result) == probe.Same) {
			return
		}
	}
	t.Fatalf("ProbeRunsFor(%s, %s) does not hold the attached run of %q: %+v", kind, id, input, runs)
}

// TestRunAndAttach runs a probe in the console on the sample world and
// attaches it to what the operator looks at (the latest common.Focus): the
// review screen's proposal, then another proposal, then a record. The
// store then lists it as their evidence.
func TestRunAndAttach(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	recs, err := deps.Service.Records(review.RecordFilter{})
	if err != nil || len(recs) == 0 {
		t.Fatalf("the sample records: %d, %v", len(recs), err)
	}
	const q = "SELECT COUNT(*) AS n_items FROM items_g1"
	env, err := deps.Service.ResolveEnv("shop")
	if err != nil {
		t.Fatal(err)
	}
	want := probe.Run(context.Background(), env, q, probe.Limits{})
	if !want.OK() {
		t.Fatalf("the probe fails outside the console: %s", want.Error)
	}

	tm, queue := startConsole(t, deps, 140, 33)
	tm.Type(q)
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	uitest.WaitFor(t, tm, "✔ 1 row · shop", "n_items", fmt.Sprint(want.Rows[0][0]), "(1 row)")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc}) // leave the input: A attaches

	for _, focus := range []common.Focus{{Kind: "proposal", ID: queue[1].ID}, {Kind: "record", ID: recs[0].ID}} {
		tm.Send(focus)
		uitest.WaitFor(t, tm, "attach → "+focus.Kind+" "+focus.ID)
		tm.Type("A")
		uitest.WaitFor(t, tm, "attached run_", "to "+focus.Kind+" "+focus.ID)
		attachedRun(t, deps.Service, focus.Kind, focus.ID, q, &want)
	}
}

// TestMultiLineOnTheProgram drives the program: alt+enter reaches the
// console as a line break, enter runs both lines, the input shows them,
// and the run attached is of the two-line query.
func TestMultiLineOnTheProgram(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	tm, queue := startConsole(t, deps, 120, 33)
	tm.Type("SELECT 1")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter, Alt: true})
	tm.Type(", 2 AS two")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	uitest.WaitFor(t, tm, "✔ 1 row · shop", "› SELECT 1", "  , 2 AS two", "two")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	tm.Type("A")
	uitest.WaitFor(t, tm, "attached run_", "to proposal "+queue[0].ID)
	attachedRun(t, deps.Service, "proposal", queue[0].ID, "SELECT 1\n, 2 AS two", nil)
}

// TestPastedControlBytesShow: ESC and BEL bytes in a paste show in the
// input as \x1b and \x07, as the forms show them, instead of vanishing
// (issue 23 item 12); the probe runs the text shown.
func TestPastedControlBytesShow(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	tm, _ := startConsole(t, deps, 120, 33)
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("SELECT 'a\x1b[31mb\x07' AS s"), Paste: true})
	uitest.WaitFor(t, tm, `SELECT 'a\x1b[31mb\x07' AS s`)
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	uitest.WaitFor(t, tm, "✔ 1 row · shop", `a\x1b[31mb\x07`)
}
