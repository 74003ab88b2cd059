// Package curator distils finished trajectories and runs an LLM curator
// over any OpenAI-compatible chat-completions API. The curator reads the
// bank through memory_search/memory_get, probes environments read-only when
// allowed, and proposes changes through propose_* tools. It never writes a
// record: its proposals land in the review queue in one transaction at the
// end of a successful run, and a failed run leaves nothing behind.
//
// To use a local server, point OPENAI_BASE_URL at its /v1 endpoint and
// name a model that supports tool calls, e.g.
//
//	OPENAI_BASE_URL=http://localhost:11434/v1 memreview curate --model qwen3 traj_07
//
// OPENAI_API_KEY may be unset (or "none") for servers that need no key;
// memreview.toml [curator] model, base_url, timeout and max_steps give
// defaults for the bank.
package curator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/memreview/memreview/review"
)

// Defaults used when neither the environment, the flags nor memreview.toml
// say otherwise.
const (
	DefaultBaseURL     = "https://api.openai.com/v1"
	DefaultModel       = "gpt-4o-mini"
	DefaultHTTPTimeout = 120 * time.Second
	DefaultRunTimeout  = 10 * time.Minute
	DefaultMaxSteps    = 24
	DefaultMaxTokens   = 400_000
	DefaultMaxRetries  = 3
)

// Settings say which model server to use and how far a run may go.
type Settings struct {
	BaseURL string // OpenAI-compatible endpoint, usually ending in /v1
	APIKey  string // "" or "none" for local servers: no Authorization header
	Model   string
	// HTTPTimeout bounds one HTTP attempt; RunTimeout bounds a whole
	// Distill or Curate call.
	HTTPTimeout, RunTimeout time.Duration
	// MaxSteps bounds the model turns of one trajectory's conversation;
	// MaxTokens bounds the tokens (prompt + completion) of a whole Curate
	// call; MaxRetries bounds retries of one request on 429/5xx (negative:
	// none). Zero fields take the defaults.
	MaxSteps, MaxTokens, MaxRetries int
	Probe                           bool   // declare the read-only probe tools
	Operator                        string // who started the run (recorded on the Run)
	// NoEndpoint: SettingsFromEnv found no endpoint (OPENAI_BASE_URL,
	// [curator] base_url) and no key, and fell back to the default
	// endpoint, a hosted API the operator never chose; Ready refuses it.
	NoEndpoint bool
}

// Ready says why a run must not start with s: no endpoint and no key
// were configured, so the only place to send a trajectory would be a
// hosted API nobody chose. nil otherwise.
func (s Settings) Ready() error {
	if !s.NoEndpoint {
		return nil
	}
	return errors.New("curator: no model server is configured, so nothing was sent. Set OPENAI_BASE_URL to an " +
		"OpenAI-compatible endpoint (e.g. http://localhost:11434/v1 for a local server; " + DefaultBaseURL +
		" for OpenAI's) and OPENAI_API_KEY if it needs a key, or base_url and model under [curator] in the bank's memreview.toml")
}

// SettingsFromEnv builds Settings from memreview.toml [curator], the
// environment and the --model flag. Precedence: flag, then environment
// (OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL), then memreview.toml, then
// the defaults. An unparsable [curator] timeout falls back to the default.
// With no endpoint and no key at all, NoEndpoint is set: Ready refuses to
// start a run rather than send a trajectory to the default hosted API.
// Operator is left for the caller (the service sets its own).
func SettingsFromEnv(cfg review.CuratorConfig, model string) Settings {
	key := os.Getenv("OPENAI_API_KEY")
	s := Settings{
		BaseURL:    firstNonEmpty(os.Getenv("OPENAI_BASE_URL"), cfg.BaseURL, DefaultBaseURL),
		APIKey:     key,
		NoEndpoint: firstNonEmpty(os.Getenv("OPENAI_BASE_URL"), cfg.BaseURL) == "" && (firstNonEmpty(key) == "" || strings.TrimSpace(key) == "none"),
		Model:      firstNonEmpty(model, os.Getenv("OPENAI_MODEL"), cfg.Model, DefaultModel),
		MaxSteps:   cfg.MaxSteps,
		MaxRetries: DefaultMaxRetries,
	}
	if d, err := time.ParseDuration(cfg.Timeout); err == nil && d > 0 {
		s.RunTimeout = d
	}
	return s.withDefaults()
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}

func (s Settings) withDefaults() Settings {
	s.BaseURL = strings.TrimRight(firstNonEmpty(s.BaseURL, DefaultBaseURL), "/")
	s.Model = firstNonEmpty(s.Model, DefaultModel)
	if s.HTTPTimeout <= 0 {
		s.HTTPTimeout = DefaultHTTPTimeout
	}
	if s.RunTimeout <= 0 {
		s.RunTimeout = DefaultRunTimeout
	}
	if s.MaxSteps <= 0 {
		s.MaxSteps = DefaultMaxSteps
	}
	if s.MaxTokens <= 0 {
		s.MaxTokens = DefaultMaxTokens
	}
	if s.MaxRetries == 0 {
		s.MaxRetries = DefaultMaxRetries
	}
	return s
}

// NewClient returns a go-openai client for s.BaseURL whose HTTP client
// retries 429 and 5xx (see RetryTransport) and bounds each attempt by
// s.HTTPTimeout.
func NewClient(s Settings) *openai.Client {
	s = s.withDefaults()
	return newClient(s, &RetryTransport{MaxRetries: max(s.MaxRetries, 0), Timeout: s.HTTPTimeout})
}

func newClient(s Settings, rt http.RoundTripper) *openai.Client {
	key := s.APIKey
	if strings.EqualFold(key, "none") {
		key = ""
	}
	cfg := openai.DefaultConfig(key)
	cfg.BaseURL = s.BaseURL
	cfg.HTTPClient = &http.Client{Transport: rt}
	return openai.NewClientWithConfig(cfg)
}

// LLM is a client together with the settings it was made for: what Distill
// and Curate talk to.
type LLM struct {
	Client   *openai.Client
	Settings Settings
}

// NewLLM returns an LLM for s with a retrying client (NewClient).
func NewLLM(s Settings) LLM {
	s = s.withDefaults()
	return LLM{Client: NewClient(s), Settings: s}
}

// chat makes one chat completion and turns every failure, including an
// answer without choices, into one sentence naming what was being done.
func (l LLM) chat(ctx context.Context, req openai.ChatCompletionRequest, during string) (openai.ChatCompletionResponse, time.Duration, error) {
	s := l.Settings.withDefaults()
	if l.Client == nil {
		l.Client = NewClient(s)
	}
	req.Model = s.Model
	var attempts atomic.Int32
	start := time.Now()
	resp, err := l.Client.CreateChatCompletion(withAttempts(ctx, &attempts), req)
	took := time.Since(start)
	if err != nil {
		return resp, took, &ChatError{Status: httpStatus(err), Timeout: isTimeout(err), err: describe(s, err, int(attempts.Load()), during)}
	}
	if len(resp.Choices) == 0 {
		return resp, took, &ChatError{err: fmt.Errorf("curator: the model server at %s answered with no choices while %s; check that model %q is served there and can answer chat completions", s.BaseURL, during, s.Model)}
	}
	return resp, took, nil
}

// describe turns a failed request into one sentence: what failed, the
// HTTP status and what to check.
func describe(s Settings, err error, attempts int, during string) error {
	var (
		apiErr  *openai.APIError
		reqErr  *openai.RequestError
		tmo     *HTTPTimeoutError
		syntax  *json.SyntaxError
		typeErr *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &tmo):
		return fmt.Errorf("curator: the model server at %s did not answer within %s (the HTTP timeout) while %s; check that it is running and not overloaded", s.BaseURL, tmo.Limit, during)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("curator: the run passed its time limit of %s while %s (waiting for the model server at %s); raise timeout in memreview.toml [curator] or use a faster model", s.RunTimeout, during, s.BaseURL)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("curator: the run was cancelled while %s", during)
	case errors.As(err, &apiErr) && apiErr.HTTPStatusCode != 0:
		return statusErr(s, apiErr.HTTPStatusCode, apiErr.HTTPStatus, apiErr.Message, attempts, during)
	case errors.As(err, &reqErr) && reqErr.HTTPStatusCode >= 300:
		return statusErr(s, reqErr.HTTPStatusCode, reqErr.HTTPStatus, snippet(string(reqErr.Body)), attempts, during)
	case errors.As(err, &syntax), errors.As(err, &typeErr), errors.As(err, &reqErr):
		return fmt.Errorf("curator: the model server at %s sent an answer that is not a chat completion while %s (%v); check that OPENAI_BASE_URL points at an OpenAI-compatible /v1 endpoint", s.BaseURL, during, err)
	}
	return fmt.Errorf("curator: could not reach the model server at %s while %s (%v); check OPENAI_BASE_URL and that the server is running", s.BaseURL, during, err)
}

func statusErr(s Settings, code int, status, msg string, attempts int, during string) error {
	if status == "" {
		status = fmt.Sprintf("%d %s", code, http.StatusText(code))
	}
	var hint string
	switch {
	case code == 401 || code == 403:
		hint = "check OPENAI_API_KEY"
	case code == 404:
		hint = fmt.Sprintf("check OPENAI_BASE_URL (it usually ends in /v1) and that model %q exists there", s.Model)
	case code == 400 || code == 422:
		hint = fmt.Sprintf("check that model %q supports tool calls and JSON-schema answers", s.Model)
	case code == 429:
		hint = "the server is limiting the request rate; wait a while or use another key or model"
	default:
		hint = "check the server's logs"
	}
	if msg = snippet(msg); msg != "" {
		msg = fmt.Sprintf(" (%q)", msg)
	}
	return fmt.Errorf("curator: the model server at %s answered %s%s%s while %s; %s", s.BaseURL, status, times(attempts), msg, during, hint)
}

func times(n int) string {
	switch {
	case n <= 1:
		return ""
	case n == 2:
		return " twice"
	case n == 3:
		return " three times"
	}
	return fmt.Sprintf(" %d times", n)
}

func snippet(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}
