package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Kind is what went wrong with an embeddings call.
type Kind int

const (
	Unreachable Kind = iota + 1 // no connection (refused, DNS, reset)
	Timeout                     // no answer within the request timeout
	RateLimited                 // HTTP 429
	ServerError                 // HTTP 5xx (and 408)
	Refused                     // another HTTP 4xx: key, model or URL is wrong
	BadAnswer                   // an answer that is not the vectors asked for
)

// Error is a failed embeddings call, saying what kind of failure it was
// so the caller (and the status line) can tell "down" from "wrong".
type Error struct {
	Kind       Kind
	Status     int           // HTTP status, when there was one
	RetryAfter time.Duration // what a 429 or 503 asked for
	Endpoint   string        // base URL and model
	Err        error
}

func (e *Error) Error() string {
	return fmt.Sprintf("embeddings from %s: %s: %v", e.Endpoint, e.reason(), e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether trying again later can help.
func (e *Error) Retryable() bool {
	switch e.Kind {
	case Unreachable, Timeout, RateLimited, ServerError:
		return true
	}
	return false
}

func (e *Error) reason() string {
	switch e.Kind {
	case Unreachable:
		return "endpoint unreachable"
	case Timeout:
		return "endpoint timed out"
	case RateLimited:
		return "rate limited (HTTP 429)"
	case ServerError:
		return fmt.Sprintf("endpoint failed (HTTP %d)", e.Status)
	case Refused:
		return fmt.Sprintf("endpoint refused the request (HTTP %d)", e.Status)
	case BadAnswer:
		return "bad answer"
	}
	return "failed"
}

// Reason is the short cause of err for a status line ("endpoint
// unreachable", "bad answer: 768 dimensions, want 1536").
func Reason(err error) string {
	var e *Error
	if errors.As(err, &e) {
		if e.Kind == BadAnswer {
			return "bad answer: " + e.Err.Error()
		}
		return e.reason()
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

// classify turns what go-openai returned into an *Error (or the caller's
// own cancellation, returned as it is).
func classify(err error, endpoint string, parent context.Context, retryAfter time.Duration) error {
	if parent.Err() != nil {
		return parent.Err()
	}
	e := &Error{Endpoint: endpoint, Err: err, RetryAfter: retryAfter}
	var api *openai.APIError
	var req *openai.RequestError
	var uerr *url.Error
	var nerr net.Error
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &api):
		e.Status = api.HTTPStatusCode
	case errors.As(err, &req):
		e.Status = req.HTTPStatusCode
	case errors.Is(err, context.DeadlineExceeded):
		e.Kind = Timeout
	case errors.As(err, &uerr) && uerr.Timeout(), errors.As(err, &nerr) && nerr.Timeout():
		e.Kind = Timeout
	case errors.As(err, &uerr), errors.As(err, &nerr):
		e.Kind = Unreachable
	case errors.As(err, &syn), errors.As(err, &typ):
		e.Kind, e.Err = BadAnswer, fmt.Errorf("the body is not the JSON of an embeddings answer (a NaN or out-of-range number?): %w", err)
	default:
		e.Kind = BadAnswer
	}
	switch s := e.Status; {
	case s == 0:
	case s == 429:
		e.Kind = RateLimited
	case s >= 500 || s == 408:
		e.Kind = ServerError
	default:
		e.Kind = Refused
	}
	return e
}
