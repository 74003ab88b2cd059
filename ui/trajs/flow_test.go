package trajs_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui"
	"github.com/memreview/memreview/ui/common"
	"github.com/memreview/memreview/ui/uitest"
)

// TestSearchFlow drives the real program (ui.New): 4 shows every
// trajectory, and a search lists those the index finds.
func TestSearchFlow(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	res, err := deps.Service.Search(app.SearchRequest{Query: "Bluetooth", Type: "trajectory", Size: 100})
	if err != nil || res.Total == 0 {
		t.Fatalf("search: %v, %v", res, err)
	}
	all, _ := deps.Service.Trajectories()
	queue, err := deps.Service.Queue()
	if err != nil || len(queue) == 0 {
		t.Fatalf("the sample queue: %d proposals, %v", len(queue), err)
	}
	tm := uitest.Start(t, ui.New(deps), 150, 43)
	uitest.WaitFor(t, tm, "Candidate "+queue[0].ID)
	tm.Type("4")
	uitest.WaitFor(t, tm, fmt.Sprintf("Trajectories %d/%d", len(all), len(all)))
	tm.Type("/Bluetooth")
	uitest.WaitFor(t, tm, fmt.Sprintf("Trajectories %d/%d", res.Total, len(all)), res.Hits[0].ID)
}

// TestWholeStep: a tool result of 120 lines shows its first few and how
// many more; x on the selected step shows every line, and x again cuts
// it (issue 23 item 12: "… 109 more lines" could not be expanded).
func TestWholeStep(t *testing.T) {
	t.Parallel()
	deps := uitest.OpenSample(t)
	var rows []string
	for i := 1; i <= 120; i++ {
		rows = append(rows, fmt.Sprintf("row-%03d", i))
	}
	long := review.Trajectory{ID: "traj_long", Env: "shop", Task: "list every row", Steps: []review.Step{
		{Role: "user", Content: "list every row"},
		{Role: "tool", Name: "sql", Content: strings.Join(rows, "\n")},
	}}
	if err := uitest.Store(t, deps).PutTrajectories([]review.Trajectory{long}); err != nil {
		t.Fatal(err)
	}
	tm := uitest.Start(t, ui.New(deps), 120, 40)
	tm.Type("4")
	uitest.WaitFor(t, tm, "Trajectories ")
	tm.Send(common.ShowTrajectory{ID: long.ID, Step: 2})
	uitest.WaitFor(t, tm, "row-008", "112 more lines (x on the selected step shows them)")
	tm.Type("x")
	uitest.WaitFor(t, tm, "row-030")
	tm.Type("G")
	uitest.WaitFor(t, tm, "row-120")
	tm.Type("x")
	uitest.WaitFor(t, tm, "112 more lines")
}
