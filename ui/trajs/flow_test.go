package trajs_test

import (
	"fmt"
	"testing"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/ui"
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
