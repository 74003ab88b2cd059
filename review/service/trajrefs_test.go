package service_test

import (
	"reflect"
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/service"
)

// hiddenRefs is a backend without RecordRefsByTrajectory (as PostgreSQL's).
type hiddenRefs struct{ review.Backend }

// TestRecordRefsByTrajectory: the SQLite one-pass read and the fallback
// that reads every record agree on the sample world, and RecordsByID reads
// exactly the ids asked for that exist.
func TestRecordRefsByTrajectory(t *testing.T) {
	svc := sampleService(t, service.Options{})
	fast, err := svc.RecordRefsByTrajectory()
	if err != nil {
		t.Fatal(err)
	}
	slow, err := service.New(hiddenRefs{svc.Backend()}, service.Options{}).RecordRefsByTrajectory()
	if err != nil {
		t.Fatal(err)
	}
	if len(fast) == 0 || !reflect.DeepEqual(fast, slow) {
		t.Fatalf("the one-pass read (%d trajectories) differs from the full read (%d):\n%v\n%v", len(fast), len(slow), fast, slow)
	}
	var id string
	for _, refs := range fast {
		id = refs[0].ID
		break
	}
	got, err := svc.RecordsByID([]string{id, "mem_nosuch", id})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[id] == nil || got[id].ID != id {
		t.Errorf("RecordsByID(%s, mem_nosuch) = %v", id, got)
	}
}
