package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// OpenAIConfig configures an OpenAI-compatible /v1/embeddings endpoint
// (OpenAI, ollama, vLLM, llama.cpp's server).
type OpenAIConfig struct {
	BaseURL string // e.g. http://localhost:11434/v1
	Model   string
	// APIKeyEnv names the environment variable holding the key; empty for
	// servers that take none.
	APIKeyEnv string
	// Dims is the vector length the model gives; 0 takes it from the first
	// answer (and every later answer must agree).
	Dims int
	// BatchSize is how many texts one request carries (default 64).
	BatchSize int
	// Timeout bounds one request (default 30 s).
	Timeout time.Duration
	// Retries is how many times a request that failed for a reason that
	// may pass (unreachable, timeout, 429, 5xx) is tried again (default 4).
	Retries int
	// Backoff is the first wait before a retry (default 1 s); it doubles
	// each time up to MaxWait (default 60 s), which also caps a server's
	// Retry-After.
	Backoff, MaxWait time.Duration
	// MaxInputChars cuts each text to this many characters (default 8,000;
	// about 2,000 tokens), so a 5,000-word task still embeds.
	MaxInputChars int
	// HTTPClient is the client requests go through (default: a new one).
	HTTPClient *http.Client
}

// OpenAI embeds through an OpenAI-compatible endpoint, in batches, with
// retries; every answer is checked before a vector is returned.
type OpenAI struct {
	cfg      OpenAIConfig
	client   *openai.Client
	endpoint string
	sleep    func(context.Context, time.Duration) error
	track    *Tracker

	mu   sync.Mutex
	dims int
}

// OpenAIOption adjusts an OpenAI embedder at construction.
type OpenAIOption func(*OpenAI)

// WithSleep replaces the wait between retries (tests record the waits
// instead of sleeping).
func WithSleep(f func(context.Context, time.Duration) error) OpenAIOption {
	return func(o *OpenAI) { o.sleep = f }
}

// WithTracker reports every call's outcome to t.
func WithTracker(t *Tracker) OpenAIOption { return func(o *OpenAI) { o.track = t } }

// NewOpenAI checks cfg and returns the embedder; it does not call the
// endpoint.
func NewOpenAI(cfg OpenAIConfig, opts ...OpenAIOption) (*OpenAI, error) {
	if strings.TrimSpace(cfg.BaseURL) == "" {
		return nil, errors.New("embeddings: no base_url (set [embeddings] base_url or MEMREVIEW_EMBEDDINGS_URL)")
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("embeddings: no model (set [embeddings] model or MEMREVIEW_EMBEDDINGS_MODEL)")
	}
	key := ""
	if cfg.APIKeyEnv != "" {
		key = os.Getenv(cfg.APIKeyEnv)
		if key == "" {
			return nil, fmt.Errorf("embeddings: api_key_env names %s, which is not set", cfg.APIKeyEnv)
		}
	}
	if cfg.Dims < 0 {
		return nil, fmt.Errorf("embeddings: dims %d", cfg.Dims)
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&cfg.BatchSize, 64)
	def(&cfg.Retries, 4)
	def(&cfg.MaxInputChars, 8000)
	defDur := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	defDur(&cfg.Timeout, 30*time.Second)
	defDur(&cfg.Backoff, time.Second)
	defDur(&cfg.MaxWait, time.Minute)
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	oc := openai.DefaultConfig(key)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	oc.HTTPClient = retryAfterDoer{cfg.HTTPClient}
	o := &OpenAI{cfg: cfg, client: openai.NewClientWithConfig(oc), dims: cfg.Dims,
		endpoint: fmt.Sprintf("%s (model %s)", oc.BaseURL, cfg.Model), sleep: sleepCtx}
	for _, opt := range opts {
		opt(o)
	}
	return o, nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Model is the configured model name.
func (o *OpenAI) Model() string { return o.cfg.Model }

// Dims is the vector length: the configured one, or the one the first
// answer gave (0 before any answer when none was configured).
func (o *OpenAI) Dims() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.dims
}

// Embed embeds texts in batches. On error it returns the vectors of the
// batches that succeeded before the failing one (a prefix of texts), so a
// caller keeps what was done; the error is an *Error unless ctx ended.
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			return nil, fmt.Errorf("embeddings: input %d is empty", i)
		}
	}
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += o.cfg.BatchSize {
		hi := min(len(texts), lo+o.cfg.BatchSize)
		vs, err := o.batch(ctx, texts[lo:hi], lo)
		if err != nil {
			return out, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

// batch sends one request, retrying what may pass.
func (o *OpenAI) batch(ctx context.Context, texts []string, offset int) ([][]float32, error) {
	in := make([]string, len(texts))
	for i, t := range texts {
		in[i] = cut(t, o.cfg.MaxInputChars)
	}
	for attempt := 0; ; attempt++ {
		vs, err := o.call(ctx, in, offset)
		if err == nil {
			if o.track != nil {
				o.track.Succeeded()
			}
			return vs, nil
		}
		var e *Error
		if !errors.As(err, &e) {
			return nil, err // the caller's context ended
		}
		if o.track != nil {
			o.track.Failed(err)
		}
		if !e.Retryable() || attempt >= o.cfg.Retries {
			return nil, err
		}
		wait := o.cfg.Backoff << attempt
		if e.RetryAfter > 0 {
			wait = e.RetryAfter
		}
		if err := o.sleep(ctx, min(wait, o.cfg.MaxWait)); err != nil {
			return nil, err
		}
	}
}

// cut shortens s to at most n characters, on a character boundary.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

type retryAfterKey struct{}

// retryAfterDoer notes a 429 or 503's Retry-After for the call that asked
// (go-openai's errors do not carry headers).
type retryAfterDoer struct{ c *http.Client }

func (d retryAfterDoer) Do(req *http.Request) (*http.Response, error) {
	res, err := d.c.Do(req)
	if err == nil && (res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusServiceUnavailable) {
		if p, ok := req.Context().Value(retryAfterKey{}).(*time.Duration); ok {
			*p = parseRetryAfter(res.Header.Get("Retry-After"), time.Now())
		}
	}
	return res, err
}

// parseRetryAfter reads seconds or an HTTP date; 0 when absent or bad.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(s, 0)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// call makes one request and checks its answer.
func (o *OpenAI) call(ctx context.Context, texts []string, offset int) ([][]float32, error) {
	var retryAfter time.Duration
	rctx, cancel := context.WithTimeout(context.WithValue(ctx, retryAfterKey{}, &retryAfter), o.cfg.Timeout)
	defer cancel()
	res, err := o.client.CreateEmbeddings(rctx, openai.EmbeddingRequestStrings{
		Input: texts, Model: openai.EmbeddingModel(o.cfg.Model), EncodingFormat: openai.EmbeddingEncodingFormatFloat,
	})
	if err != nil {
		return nil, classify(err, o.endpoint, ctx, retryAfter)
	}
	vs, err := o.check(res.Data, len(texts), offset)
	if err != nil {
		return nil, &Error{Kind: BadAnswer, Endpoint: o.endpoint, Err: err}
	}
	return vs, nil
}

// check puts the answer's vectors in input order and refuses any that
// is missing, duplicated, of the wrong length, or not finite.
func (o *OpenAI) check(data []openai.Embedding, n, offset int) ([][]float32, error) {
	if len(data) != n {
		return nil, fmt.Errorf("%d vectors for %d inputs", len(data), n)
	}
	out := make([][]float32, n)
	o.mu.Lock()
	defer o.mu.Unlock()
	dims := o.dims
	for _, d := range data {
		if d.Index < 0 || d.Index >= n {
			return nil, fmt.Errorf("vector index %d out of range for %d inputs", d.Index, n)
		}
		if out[d.Index] != nil {
			return nil, fmt.Errorf("vector index %d appears twice", d.Index)
		}
		if dims == 0 {
			dims = len(d.Embedding)
		}
		if len(d.Embedding) != dims {
			return nil, fmt.Errorf("input %d: %d dimensions, want %d", offset+d.Index, len(d.Embedding), dims)
		}
		zero := true
		for j, x := range d.Embedding {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("input %d: value %d is %v", offset+d.Index, j, x)
			}
			zero = zero && x == 0
		}
		if zero {
			return nil, fmt.Errorf("input %d: every value is zero", offset+d.Index)
		}
		out[d.Index] = d.Embedding
	}
	if dims == 0 {
		return nil, errors.New("vectors of no dimensions")
	}
	o.dims = dims
	return out, nil
}
