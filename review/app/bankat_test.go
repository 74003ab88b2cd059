package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/app"
	"github.com/memreview/memreview/sample"
)

func byID(recs []review.Record) map[string]review.Record {
	m := map[string]review.Record{}
	for _, r := range recs {
		m[r.ID] = r
	}
	return m
}

// The bank before and after a decision, and as it stood at a time, are
// read back from the record versions.
func TestRecordsAtDecision(t *testing.T) {
	t.Parallel()
	// Every decision in one millisecond: the order is the decisions'
	// sequence, not their time (a create and a delete in the same
	// millisecond read as one moment under a timestamp's order).
	frozen := time.Now().UTC()
	svc := sampleService(t, app.Options{Now: func() time.Time { return frozen }})
	ctx := context.Background()
	d, err := svc.Decide(ctx, review.DecideRequest{Proposal: sample.PropConflictUpdate, Verb: review.Accept})
	if err != nil {
		t.Fatal(err)
	}
	created, err := svc.Decide(ctx, review.DecideRequest{Proposal: sample.PropAcceptCreate, Verb: review.Accept})
	if err != nil {
		t.Fatal(err)
	}
	newID := created.Record.ID
	if _, err := svc.DecideRecords(ctx, review.RecordRequest{Verb: review.Delete, IDs: []string{sample.RecWrong}}); err != nil {
		t.Fatal(err)
	}
	now, _ := svc.Records(review.RecordFilter{})
	for _, c := range []struct {
		name    string
		read    func() ([]review.Record, error)
		join    int  // mem_0001's version
		hasNew  bool // the created record is there
		wrongOn bool // mem_0003 still active
	}{
		{"before the update", func() ([]review.Record, error) { return svc.RecordsAtDecision(d.ID, false) }, 1, false, true},
		{"after the update", func() ([]review.Record, error) { return svc.RecordsAtDecision(d.ID, true) }, 2, false, true},
		{"before the create", func() ([]review.Record, error) { return svc.RecordsAtDecision(created.ID, false) }, 2, false, true},
		{"after the create", func() ([]review.Record, error) { return svc.RecordsAtDecision(created.ID, true) }, 2, true, true},
		{"as generated", func() ([]review.Record, error) { return svc.RecordsAsOf(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)) }, 1, false, true},
		{"now", func() ([]review.Record, error) { return svc.RecordsAsOf(frozen.Add(time.Hour)) }, 2, true, false},
	} {
		recs, err := c.read()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		m := byID(recs)
		_, hasNew := m[newID]
		if m[sample.RecRefJoin].Version != c.join || hasNew != c.hasNew || (m[sample.RecWrong].Status == review.Active) != c.wrongOn {
			t.Errorf("%s: mem_0001 v%d, %s there %v, mem_0003 %s", c.name, m[sample.RecRefJoin].Version, newID, hasNew, m[sample.RecWrong].Status)
		}
		if c.name == "now" && len(recs) != len(now) {
			t.Errorf("now: %d records, the bank has %d", len(recs), len(now))
		}
	}
	if _, err := svc.RecordsAtDecision("dec_9999", true); err == nil {
		t.Fatal("an unknown decision gave a bank")
	}
}

// As if every open proposal were accepted: creates and merges add records
// under the proposal's id, updates replace, deletes and merges retire, and
// the second of two proposals on one record is left out.
func TestRecordsWithPending(t *testing.T) {
	t.Parallel()
	svc := sampleService(t, app.Options{})
	recs, err := svc.RecordsWithPending()
	if err != nil {
		t.Fatal(err)
	}
	m := byID(recs)
	checks := []struct {
		id      string
		status  review.Status
		version int
	}{
		{sample.RecRefJoin, review.Active, 2},         // PropConflictUpdate; PropConflictDelete conflicts
		{sample.RecAttrsG2, review.Active, 2},         // PropUpdate
		{sample.RecWrong, review.Retired, 1},          // PropDelete
		{sample.RecRevenueHeadA, review.Retired, 1},   // PropMerge's sources
		{sample.PropMerge, review.Active, 0},          // and its record
		{sample.PropTrajectoryOnly, review.Active, 0}, // a create
		{sample.RecStarsG3, review.Active, 1},         // untouched
	}
	for _, c := range checks {
		r, ok := m[c.id]
		if !ok || r.Status != c.status || r.Version != c.version {
			t.Errorf("%s: %v %s v%d, want %s v%d", c.id, ok, r.Status, r.Version, c.status, c.version)
		}
	}
	if _, ok := m[sample.PropSkip]; ok {
		t.Error("a skip added a record")
	}
}
