package mcpserver

import (
	"fmt"
	"sync"
	"time"
)

// limiter caps each agent's writes (memory_propose, trajectory_submit) at
// its rate: at most n in any minute, a sliding window over the times of
// its last n writes. Its clock is the server's (Options.Now), so tests
// run minutes of traffic in no time.
type limiter struct {
	mu   sync.Mutex
	now  func() time.Time
	seen map[string][]time.Time // agent → times of its last writes, oldest first
}

func newLimiter(now func() time.Time) *limiter {
	return &limiter{now: now, seen: map[string][]time.Time{}}
}

// allow takes one write for agent at n a minute (n <= 0: no cap), or
// says when the next one will be allowed.
func (l *limiter) allow(agent string, n int) error {
	if n <= 0 {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	ts := l.seen[agent]
	cut := 0
	for cut < len(ts) && now.Sub(ts[cut]) >= time.Minute {
		cut++
	}
	ts = ts[cut:]
	if len(ts) >= n {
		l.seen[agent] = ts
		wait := time.Minute - now.Sub(ts[0])
		return &rateLimited{fmt.Sprintf("rate limit: this credential may propose or submit %d times a minute; try again in %s (nothing was queued)", n, wait.Round(time.Second))}
	}
	l.seen[agent] = append(ts, now)
	return nil
}

// rateLimited is the tool error of a write over the rate: the audit
// marks it rate-limited.
type rateLimited struct{ msg string }

func (r *rateLimited) Error() string { return r.msg }
