package curator

import (
	"context"
	"errors"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// ChatError is a chat completion that failed: one sentence saying what
// failed and what to check (Error), and what kind of failure it was, so
// that a caller can count rate limits, server errors and timeouts.
type ChatError struct {
	// Status is the HTTP status the server last answered (429, 500, …);
	// 0 when it answered none.
	Status int
	// Timeout: no answer within the HTTP timeout or the caller's deadline.
	Timeout bool
	err     error
}

func (e *ChatError) Error() string { return e.err.Error() }

// Unwrap gives the sentence's error.
func (e *ChatError) Unwrap() error { return e.err }

// Chat makes one chat completion with l's model (req.Model is set from
// the settings), retrying 429 and 5xx as NewClient's transport does. It
// returns the answer and how long the model took; a failure, an answer
// without choices included, is a *ChatError.
func (l LLM) Chat(ctx context.Context, req openai.ChatCompletionRequest, during string) (openai.ChatCompletionResponse, time.Duration, error) {
	return l.chat(ctx, req, during)
}

// httpStatus is the HTTP status of a failed request, 0 when none came.
func httpStatus(err error) int {
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		return apiErr.HTTPStatusCode
	case errors.As(err, &reqErr):
		return reqErr.HTTPStatusCode
	}
	return 0
}

// isTimeout reports whether a request failed for want of time.
func isTimeout(err error) bool {
	var tmo *HTTPTimeoutError
	return errors.As(err, &tmo) || errors.Is(err, context.DeadlineExceeded)
}
