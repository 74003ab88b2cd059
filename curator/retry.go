package curator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// RetryTransport is an http.RoundTripper that gives every request a time
// limit per attempt and retries answers 429 and 5xx with backoff, honouring
// Retry-After (seconds or an HTTP date). NewClient installs it under the
// go-openai client, so every call the curator makes goes through it.
type RetryTransport struct {
	Base       http.RoundTripper // nil: http.DefaultTransport
	MaxRetries int               // retries after the first attempt; 0: none
	// Timeout bounds one attempt, from sending the request to reading the
	// last byte of the answer; 0: none.
	Timeout time.Duration
	// Backoff is the wait before retry n (1-based) when the server gives
	// no Retry-After; nil: 200ms doubling, at most 3s.
	Backoff func(n int) time.Duration
	// MaxWait caps a Retry-After the server asks for; 0: 30s.
	MaxWait time.Duration
	// Sleep waits d or until ctx ends; nil: a real timer. Tests inject it.
	Sleep func(ctx context.Context, d time.Duration) error
}

// HTTPTimeoutError says one attempt passed the transport's Timeout.
type HTTPTimeoutError struct{ Limit time.Duration }

func (e *HTTPTimeoutError) Error() string {
	return fmt.Sprintf("no answer within the HTTP timeout of %s", e.Limit)
}

// Timeout marks the error as a timeout for net/http and url.Error.
func (e *HTTPTimeoutError) Timeout() bool { return true }

type attemptsKey struct{}

// withAttempts makes the transport count the attempts of requests made with
// the returned context into n (the last request's count wins).
func withAttempts(ctx context.Context, n *atomic.Int32) context.Context {
	return context.WithValue(ctx, attemptsKey{}, n)
}

func defaultBackoff(n int) time.Duration {
	d := 200 * time.Millisecond << (n - 1)
	if d > 3*time.Second || d <= 0 {
		d = 3 * time.Second
	}
	return d
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// RoundTrip sends req, retrying 429 and 5xx answers at most MaxRetries
// times. The last answer is returned as is when retries run out.
func (rt *RetryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := rt.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if req.Body != nil && req.GetBody == nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
		req.Body, _ = req.GetBody()
	}
	counter, _ := req.Context().Value(attemptsKey{}).(*atomic.Int32)
	for attempt := 1; ; attempt++ {
		if counter != nil {
			counter.Store(int32(attempt))
		}
		r := req
		if attempt > 1 && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r = req.Clone(req.Context())
			r.Body = body
		}
		resp, err := rt.once(base, r)
		if err != nil || !retryable(resp.StatusCode) || attempt > rt.MaxRetries {
			return resp, err
		}
		wait := rt.wait(resp, attempt)
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		sleep := rt.Sleep
		if sleep == nil {
			sleep = sleepCtx
		}
		if err := sleep(req.Context(), wait); err != nil {
			return nil, err
		}
	}
}

// once makes one attempt under the per-attempt timeout. The timeout keeps
// running while the caller reads the body; closing the body releases it.
func (rt *RetryTransport) once(base http.RoundTripper, req *http.Request) (*http.Response, error) {
	if rt.Timeout <= 0 {
		return base.RoundTrip(req)
	}
	parent := req.Context()
	ctx, cancel := context.WithTimeout(parent, rt.Timeout)
	resp, err := base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, rt.timeoutErr(ctx, parent, err)
	}
	resp.Body = &timedBody{rc: resp.Body, ctx: ctx, parent: parent, cancel: cancel, rt: rt}
	return resp, nil
}

// timeoutErr turns a failure caused by the attempt's own deadline (not the
// caller's) into an *HTTPTimeoutError.
func (rt *RetryTransport) timeoutErr(ctx, parent context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && parent.Err() == nil {
		return &HTTPTimeoutError{Limit: rt.Timeout}
	}
	return err
}

type timedBody struct {
	rc          io.ReadCloser
	ctx, parent context.Context
	cancel      context.CancelFunc
	rt          *RetryTransport
}

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil && err != io.EOF {
		err = b.rt.timeoutErr(b.ctx, b.parent, err)
	}
	return n, err
}

func (b *timedBody) Close() error {
	err := b.rc.Close()
	b.cancel()
	return err
}

func retryable(code int) bool {
	return code == http.StatusTooManyRequests || code >= 500
}

// wait is how long to pause before the next attempt: the server's
// Retry-After when it gives one (capped at MaxWait), else the backoff.
func (rt *RetryTransport) wait(resp *http.Response, attempt int) time.Duration {
	maxWait := rt.MaxWait
	if maxWait <= 0 {
		maxWait = 30 * time.Second
	}
	if d, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
		return min(d, maxWait)
	}
	backoff := rt.Backoff
	if backoff == nil {
		backoff = defaultBackoff
	}
	return min(backoff(attempt), maxWait)
}

// retryAfter parses a Retry-After value: delay-seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0, false
		}
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}
