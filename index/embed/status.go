package embed

import (
	"fmt"
	"strconv"
	"sync"
	"time"
)

// Status is where embedding stands, for the footer and
// 'memreview embeddings status'.
type Status struct {
	Model string `json:"model"`
	// Fallback: the offline embedder, because no endpoint is configured.
	Fallback bool `json:"fallback,omitempty"`
	Done     int  `json:"done"`
	Total    int  `json:"total"`
	// LastError is why the last call failed ("endpoint unreachable");
	// Since is when the current run of failures began. Both are cleared by
	// a call that succeeds.
	LastError string    `json:"last_error,omitempty"`
	Since     time.Time `json:"since,omitzero"`
}

// String is the status line: "embeddings: 12,000 of 100,000; endpoint
// unreachable since 10:02".
func (s Status) String() string {
	out := fmt.Sprintf("embeddings: %s of %s", thousands(s.Done), thousands(s.Total))
	if s.Fallback {
		out += " (offline fallback)"
	}
	if s.LastError != "" {
		out += "; " + s.LastError
		if !s.Since.IsZero() {
			out += " since " + s.Since.Local().Format("15:04")
		}
	}
	return out
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// Tracker keeps a Status safe for concurrent use: the worker sets the
// counts, the embedder reports each call's outcome.
type Tracker struct {
	mu  sync.Mutex
	s   Status
	now func() time.Time
}

// NewTracker returns a tracker for model; now is the clock (nil: time.Now).
func NewTracker(model string, fallback bool, now func() time.Time) *Tracker {
	if now == nil {
		now = time.Now
	}
	return &Tracker{s: Status{Model: model, Fallback: fallback}, now: now}
}

// SetProgress records done of total.
func (t *Tracker) SetProgress(done, total int) {
	t.mu.Lock()
	t.s.Done, t.s.Total = done, total
	t.mu.Unlock()
}

// AddDone counts n more texts embedded.
func (t *Tracker) AddDone(n int) {
	t.mu.Lock()
	t.s.Done += n
	t.mu.Unlock()
}

// Failed records a failed call; the first of a run sets Since.
func (t *Tracker) Failed(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.s.LastError = Reason(err)
	if t.s.Since.IsZero() {
		t.s.Since = t.now()
	}
}

// Succeeded records a call that worked: the error is cleared.
func (t *Tracker) Succeeded() {
	t.mu.Lock()
	t.s.LastError, t.s.Since = "", time.Time{}
	t.mu.Unlock()
}

// Status is a copy of the current status.
func (t *Tracker) Status() Status {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.s
}
