package eval

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

func TestMain(m *testing.M) { uitest.Main(m) }

var t0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// fixedReport is a run of 40 tasks under three conditions, two
// repetitions, the last condition's second repetition still running:
// none passes the first 20 tasks but 3, the stale bank the first 20, the
// curated bank all 40 but task 28.
func fixedReport() (*app.EvalReport, []app.EvalRunInfo) {
	p := &app.EvalPlan{ID: "ev_20261201T090000_abcdef", Conditions: []string{"none", "bank@2026-04-01", "bank@before:dec_0006"},
		Runs: 2, Budget: 15, Model: "qwen3:8b", Started: t0, Price: &review.Price{InputPerMTok: 0.15, OutputPerMTok: 0.6}}
	for i := 1; i <= 40; i++ {
		p.Tasks = append(p.Tasks, review.Task{ID: fmt.Sprintf("shop-%02d", i), Env: "shop", Text: "task", Grading: review.Grading{Probe: "SELECT 1"}})
	}
	var runs []app.EvalTaskRun
	n := 0
	for rep := 1; rep <= 2; rep++ {
		for i, tk := range p.Tasks {
			for ci, c := range p.Conditions {
				if rep == 2 && ci == 2 && i >= 25 {
					continue // still running
				}
				pass := map[int]bool{0: i < 20 && i != 4 && i != 9 && i != 17, 1: i < 20, 2: i != 27}[ci]
				st := app.EvalFailed
				if pass {
					st = app.EvalPassed
				}
				n++
				runs = append(runs, app.EvalTaskRun{Task: tk.ID, Index: i + 1, Condition: c, Rep: rep, Status: st, ToolCalls: 1 + i%3,
					Input: 900 + 10*ci, Output: 60, Answer: "42", Ended: t0.Add(time.Duration(n) * time.Second)})
			}
		}
	}
	rep := app.NewEvalReport(p, runs, true)
	return rep, []app.EvalRunInfo{
		{ID: p.ID, Started: t0, Conditions: p.Conditions, Model: p.Model, Done: rep.Done, Total: rep.Total, Running: true},
		{ID: "ev_20261130T120000_012345", Started: t0.Add(-21 * time.Hour), Conditions: []string{"none", "bank"}, Model: "gpt-4o-mini", Done: 80, Total: 80},
	}
}

// loaded is the screen at w×h with the fixed runs and report loaded.
func loaded(t *testing.T, w, h int) *Model {
	t.Helper()
	m := New(common.NewCommon(), common.Deps{}).(*Model)
	m.SetSize(w, h)
	rep, runs := fixedReport()
	m.runsSeq, m.repSeq = 1, 1
	m.Update(runsLoaded{seq: 1, runs: runs})
	m.Update(reportLoaded{seq: 1, id: rep.Plan.ID, rep: rep})
	return m
}

// The runs, the table and the chart fit 80x24 and 200x60 and read without
// colour (goldens under the ASCII profile); so does the task view.
func TestGoldenScreens(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 60}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, h), func(t *testing.T) {
			m := loaded(t, w, h)
			m.deps.Service = nil
			v := m.runsViewText()
			uitest.CheckFits(t, "runs", v, w, h)
			for _, want := range []string{"ev_20261201T090000_abcdef", "█", "▁", "task  ", " 20 ", "left", "none", "bank@before:dec_0006"} {
				if !strings.Contains(v, want) {
					t.Errorf("the runs view lacks %q:\n%s", want, v)
				}
			}
			golden.RequireEqual(t, []byte(v))
		})
	}
	m := loaded(t, 80, 24)
	m.Update(uitest.Key("enter"))
	v := fit(m.tasksView(), 80, 24)
	uitest.CheckFits(t, "tasks", v, 80, 24)
	if !strings.Contains(v, "▸    1 shop-01") || !strings.Contains(v, "✔ passed") {
		t.Fatalf("the task view:\n%s", v)
	}
}

// runsViewText is the runs view as View draws it with a bank open.
func (m *Model) runsViewText() string {
	return fit(m.runsView(), m.Width, m.Height)
}

// The chart's columns follow the pass rate; a task without a graded run
// is blank; more tasks than columns share them.
func TestChart(t *testing.T) {
	rep, _ := fixedReport()
	lines := ChartLines(rep, 62)
	if len(lines) != 4 {
		t.Fatalf("%d chart lines", len(lines))
	}
	none := []rune(strings.TrimPrefix(lines[0], pad("none", 20)+" "))
	if len(none) != 40 || none[0] != '█' || none[4] != '▁' || none[25] != '▁' {
		t.Fatalf("none's line %q", string(none))
	}
	curated := []rune(lines[2][strings.Index(lines[2], " ")+1:])
	curated = []rune(strings.TrimLeft(string(curated), " "))
	if curated[27] != '▁' || curated[26] != '█' {
		t.Fatalf("the curated bank's line %q", string(curated))
	}
	narrow := ChartLines(rep, 30)
	for _, l := range narrow {
		if w := len([]rune(l)); w > 30 {
			t.Fatalf("a chart line %d wide at 30: %q", w, l)
		}
	}
	if got := ProgressLine(30, 120, 90*time.Second, 40); !strings.Contains(got, "30/120 · 1m30s left") || !strings.HasPrefix(got, "[██") {
		t.Fatalf("progress line %q", got)
	}
	if eta := ETA(rep, t0); eta <= 0 {
		t.Fatalf("no ETA for a running run")
	}
}

// A running run is read again every second, an idle list every five;
// the cursor keeps its run when the list changes.
func TestPolling(t *testing.T) {
	m := loaded(t, 80, 24)
	if m.pollEvery != pollRunning {
		t.Fatalf("poll every %v with a run running", m.pollEvery)
	}
	_, runs := fixedReport()
	m.Update(uitest.Key("down"))
	m.runsSeq++
	runs[0].Running, runs[0].Done = false, runs[0].Total
	m.Update(runsLoaded{seq: m.runsSeq, runs: append([]app.EvalRunInfo{{ID: "ev_new", Started: t0.Add(time.Hour)}}, runs...)})
	if m.pollEvery != pollIdle || m.selectedRun().ID != "ev_20261130T120000_012345" {
		t.Fatalf("poll every %v, cursor on %s", m.pollEvery, m.selectedRun().ID)
	}
	gen := m.pollGen
	if _, cmd := m.Update(polled{gen: gen - 1}); cmd != nil {
		t.Fatal("a stale timer polled")
	}
	// A run starts while the idle timer (5 s) waits: a timer of the running
	// interval replaces it at once, and the idle one's tick is stale.
	m.runsSeq++
	runs[0].Running = true
	m.Update(runsLoaded{seq: m.runsSeq, runs: runs})
	if m.pollEvery != pollRunning || m.pollGen != gen+1 {
		t.Fatalf("a run started under the idle timer: poll every %v, generation %d (was %d)", m.pollEvery, m.pollGen, gen)
	}
	if _, cmd := m.Update(polled{gen: gen}); cmd != nil {
		t.Fatal("the replaced idle timer polled")
	}
}

// A running run shows its time left in the list whichever run the cursor
// is on: a run that starts while another is selected says how long it
// has to go without being selected.
func TestTimeLeftUnselected(t *testing.T) {
	m := loaded(t, 120, 24)
	_, runs := fixedReport()
	m.Update(uitest.Key("down")) // the finished run
	m.runsSeq++
	live := app.EvalRunInfo{ID: "ev_live", Started: t0.Add(time.Hour), Model: "m", Done: 2, Total: 4, Running: true, Left: 90 * time.Second}
	m.Update(runsLoaded{seq: m.runsSeq, runs: append([]app.EvalRunInfo{live}, runs...)})
	if m.selectedRun().ID == "ev_live" {
		t.Fatal("the cursor moved to the new run")
	}
	if got := m.runLine(&m.runs[0], 120); !strings.Contains(got, "2/4 · 1m30s left") {
		t.Fatalf("the unselected running run's line: %q", got)
	}
}
