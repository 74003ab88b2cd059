package app_test

import (
	"reflect"
	"testing"

	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/review/store"
)

// hiddenRefs is a backend without RecordRefsByTrajectory (as PostgreSQL's).
type hiddenRefs struct{ app.Store }

// TestRecordRefsByTrajectory: the SQLite one-pass read and the fallback
// that reads every record agree on the sample world, and RecordsByID reads
// the records of the ids asked for that exist, in one query as in one read
// per id.
func TestRecordRefsByTrajectory(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	st, err := store.Open(svc.Dir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fast, err := svc.RecordRefsByTrajectory()
	if err != nil {
		t.Fatal(err)
	}
	slow, err := app.New(hiddenRefs{st}, app.Options{}).RecordRefsByTrajectory()
	if err != nil {
		t.Fatal(err)
	}
	if len(fast) == 0 || !reflect.DeepEqual(fast, slow) {
		t.Fatalf("the one-pass read (%d trajectories) differs from the full read (%d):\n%v\n%v", len(fast), len(slow), fast, slow)
	}
	ids := []string{"mem_nosuch"}
	for _, refs := range fast {
		for i := range refs.Len() {
			ids = append(ids, refs.At(i).ID, refs.At(i).ID) // each twice
		}
	}
	got, err := svc.RecordsByID(ids)
	if err != nil {
		t.Fatal(err)
	}
	one, err := app.New(hiddenRefs{st}, app.Options{}).RecordsByID(ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != (len(ids)-1)/2 || got["mem_nosuch"] != nil || !reflect.DeepEqual(got, one) {
		t.Errorf("RecordsByID of %d ids: one query gave %d records, one read each %d (want them equal, mem_nosuch left out)", len(ids), len(got), len(one))
	}
}
