package app

import (
	"context"
	"testing"
	"time"
)

// Retrievals beyond the slots wait their turn, in the order they came;
// a caller whose context ends stops waiting; no bound lets all run.
func TestRetrieveSlots(t *testing.T) {
	s := &Service{opt: Options{RetrieveSlots: 1}}
	ctx := context.Background()
	release, err := s.acquireRetrieve(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gone, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := s.acquireRetrieve(gone); err == nil {
		t.Fatal("a second retrieval ran beside the first with one slot")
	}
	order := make(chan int, 3)
	for i := range 3 {
		go func() {
			r, err := s.acquireRetrieve(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			order <- i
			r()
		}()
		// Each waiter is queued before the next starts.
		for deadline := time.Now().Add(2 * time.Second); int(s.rslots.waiting.Load()) < i+1; {
			if time.Now().After(deadline) {
				t.Fatalf("waiter %d never queued", i)
			}
			time.Sleep(time.Millisecond)
		}
	}
	release()
	for want := range 3 {
		if got := <-order; got != want {
			t.Fatalf("waiter %d ran %d-th", got, want)
		}
	}
	u := &Service{opt: Options{RetrieveSlots: -1}}
	for range 100 {
		if _, err := u.acquireRetrieve(gone); err != nil {
			t.Fatalf("unbounded: %v", err)
		}
	}
}
