// The progress line a command prints while it builds the search index.

package cli

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// progressMin is the smallest build or catch-up worth a progress line: a
// small one ends before anyone would read it.
const progressMin = 5000

// indexProgress returns the function the service tells how far building
// or catching up the index has come. It prints to w a line such as
// "memreview: building the search index: 40,000 of 100,000 (40%)" at most
// every interval, and when the work is done; nothing for small work.
// Once mute holds true it prints nothing more (the TUI sets it when its
// screen opens, so a later catch-up does not write over the screen).
func indexProgress(w io.Writer, interval time.Duration, mute *atomic.Bool) func(done, total int) {
	var mu sync.Mutex
	var last time.Time
	finished := false
	return func(done, total int) {
		if total < progressMin || mute.Load() {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		end := done >= total
		if end && finished || !end && time.Since(last) < interval {
			return
		}
		last, finished = time.Now(), end
		fmt.Fprintf(w, "memreview: building the search index: %s of %s (%d%%)\n", thousands(done), thousands(total), done*100/total)
	}
}

// indexProgress is indexProgress on the command's stderr, once a second,
// until the TUI mutes it; once the TUI follows the progress (tuiProgress),
// it goes there instead.
func (c *call) indexProgress() func(done, total int) {
	line := indexProgress(c.stderr, time.Second, &c.muteProgress)
	return func(done, total int) {
		if f := c.tuiProgress.Load(); f != nil {
			(*f)(done, total)
			return
		}
		line(done, total)
	}
}

// thousands writes n with commas: 100000 → 100,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
