package index

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/memreview/memreview/review"
)

// Two processes that find the index missing at once must not build into
// the same folder: one builds, the other waits for it and then finds the
// index in use (or opens it), never a failed build. Each Open here has
// its own file descriptors, so flock treats them as two processes.
func TestConcurrentFirstOpensDoNotCollide(t *testing.T) {
	src := newFake()
	for i := range 400 {
		src.putRecord(review.Record{ID: fmt.Sprintf("mem_%03d", i), Lemma: fmt.Sprintf("record %d joins table t%d", i, i%7), Category: review.Fact})
	}
	for round := range 3 {
		dir := filepath.Join(t.TempDir(), "index")
		var wg sync.WaitGroup
		errs := make([]error, 3)
		opened := make([]*Index, 3)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				opened[i], errs[i] = Open(dir, src)
			}()
		}
		wg.Wait()
		ok := 0
		for i, err := range errs {
			switch {
			case err == nil:
				ok++
				if n, err := opened[i].DocCount(); err != nil || n < 400 {
					t.Errorf("round %d: index holds %d docs (%v), want the 400 records", round, n, err)
				}
				opened[i].Close()
			case errors.Is(err, ErrInUse):
			default:
				t.Errorf("round %d: open %d: %v (want success or ErrInUse)", round, i, err)
			}
		}
		if ok == 0 {
			t.Errorf("round %d: no Open succeeded: %v", round, errs)
		}
	}
}
