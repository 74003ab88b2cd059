package app

import (
	"math/rand/v2"
	"sync"
	"testing"
)

// TestScreenInChunks: on any number of goroutines, screenInChunks finds
// the least index that stops (as one goroutine going in order would),
// visits every index below it exactly once, and none twice.
func TestScreenInChunks(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n := rng.IntN(8 * screenChunk)
		stops := map[int]bool{}
		for range rng.IntN(4) {
			if n > 0 {
				stops[rng.IntN(n)] = true
			}
		}
		want := -1
		for i := range n {
			if stops[i] {
				want = i
				break
			}
		}
		workers := 1 + trial%6
		var mu sync.Mutex
		visits := make([]int, n)
		got := screenInChunks(n, workers, func(i int) bool {
			mu.Lock()
			visits[i]++
			mu.Unlock()
			return stops[i]
		})
		if got != want {
			t.Fatalf("n %d, %d workers, stops %v: got %d, want %d", n, workers, stops, got, want)
		}
		upTo := n
		if want >= 0 {
			upTo = want + 1
		}
		for i, v := range visits {
			if i < upTo && v != 1 || v > 1 {
				t.Fatalf("n %d, %d workers, stop at %d: index %d visited %d times", n, workers, want, i, v)
			}
		}
	}
}
