package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// fakeEndpoint speaks the OpenAI /v1/embeddings protocol. Each request
// is answered by the next scripted reply, or, when the script has run
// out, by the vectors vec gives. The test decides every vector.
type fakeEndpoint struct {
	t      *testing.T
	mu     sync.Mutex
	script []func(w http.ResponseWriter, in []string) bool // true: answered
	inputs [][]string
	auth   []string
	srv    *httptest.Server
}

// vec is the test's vector for a text: 4 values from its bytes, never
// all zero.
func vec(text string) []float32 {
	v := []float32{1, 0, 0, 0}
	for i, c := range []byte(text) {
		v[i%4] += float32(c%17) / 16
	}
	return v
}

func newFake(t *testing.T) *fakeEndpoint {
	f := &fakeEndpoint{t: t}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		var req struct {
			Input []string `json:"input"`
			Model string   `json:"model"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.inputs = append(f.inputs, req.Input)
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		var step func(http.ResponseWriter, []string) bool
		if len(f.script) > 0 {
			step, f.script = f.script[0], f.script[1:]
		}
		f.mu.Unlock()
		if step != nil && step(w, req.Input) {
			return
		}
		answer(w, req.Input, nil)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeEndpoint) then(steps ...func(http.ResponseWriter, []string) bool) {
	f.mu.Lock()
	f.script = append(f.script, steps...)
	f.mu.Unlock()
}

func (f *fakeEndpoint) requests() [][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.inputs)
}

// answer writes the embeddings of in; edit may change the data first.
func answer(w http.ResponseWriter, in []string, edit func(data []map[string]any) []map[string]any) {
	data := make([]map[string]any, len(in))
	for i, s := range in {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": vec(s)}
	}
	if edit != nil {
		data = edit(data)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "m",
		"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}})
}

func raw(body string) func(http.ResponseWriter, []string) bool {
	return func(w http.ResponseWriter, _ []string) bool {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
		return true
	}
}

func status(code int, header ...string) func(http.ResponseWriter, []string) bool {
	return func(w http.ResponseWriter, _ []string) bool {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"error":{"message":"scripted %d","type":"test"}}`, code)
		return true
	}
}

func edited(edit func([]map[string]any) []map[string]any) func(http.ResponseWriter, []string) bool {
	return func(w http.ResponseWriter, in []string) bool { answer(w, in, edit); return true }
}

type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *waits) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *waits) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.d)
}

func newClient(t *testing.T, url string, cfg OpenAIConfig) (*OpenAI, *waits, *Tracker) {
	t.Helper()
	cfg.BaseURL, cfg.Model = url+"/v1", "test-embed"
	if cfg.Timeout == 0 {
		cfg.Timeout = 2 * time.Second
	}
	w := &waits{}
	clock := time.Date(2026, 12, 1, 10, 2, 0, 0, time.Local)
	tr := NewTracker("test-embed", false, func() time.Time { return clock })
	o, err := NewOpenAI(cfg, WithSleep(w.sleep), WithTracker(tr))
	if err != nil {
		t.Fatal(err)
	}
	return o, w, tr
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("record text %d", i)
	}
	return out
}

func TestOpenAIBatchesInOrder(t *testing.T) {
	f := newFake(t)
	t.Setenv("TEST_EMBED_KEY", "sk-test")
	o, _, tr := newClient(t, f.srv.URL, OpenAIConfig{BatchSize: 64, APIKeyEnv: "TEST_EMBED_KEY"})
	in := texts(150)
	got, err := o.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 150 {
		t.Fatalf("%d vectors for 150 texts", len(got))
	}
	for i, v := range got {
		if !slices.Equal(v, vec(in[i])) {
			t.Fatalf("vector %d is not text %d's", i, i)
		}
	}
	var sizes []int
	for _, r := range f.requests() {
		sizes = append(sizes, len(r))
	}
	if !slices.Equal(sizes, []int{64, 64, 22}) {
		t.Errorf("batches %v, want [64 64 22]", sizes)
	}
	if f.auth[0] != "Bearer sk-test" {
		t.Errorf("Authorization %q", f.auth[0])
	}
	if o.Dims() != 4 {
		t.Errorf("Dims %d after the first answer, want 4", o.Dims())
	}
	if s := tr.Status(); s.LastError != "" {
		t.Errorf("status after success: %+v", s)
	}
}

// Answers out of index order are put back in input order.
func TestOpenAIReordersIndexes(t *testing.T) {
	f := newFake(t)
	f.then(edited(func(d []map[string]any) []map[string]any {
		slices.Reverse(d)
		return d
	}))
	o, _, _ := newClient(t, f.srv.URL, OpenAIConfig{})
	in := texts(5)
	got, err := o.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if !slices.Equal(got[i], vec(in[i])) {
			t.Errorf("vector %d is not text %d's after a reversed answer", i, i)
		}
	}
}

// Every bad answer is an error that says what was wrong, is not retried,
// and returns no vector of the failing batch.
func TestOpenAIBadAnswers(t *testing.T) {
	nan := `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,NaN,0.2,0.3]}],"model":"m"}`
	inf := `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,1e39,0.2,0.3]}],"model":"m"}`
	for _, tc := range []struct {
		name  string
		n     int
		dims  int
		step  func(http.ResponseWriter, []string) bool
		want  string
		input int // the input the message must name; -1: none
	}{
		{"wrong dimension", 3, 4, edited(func(d []map[string]any) []map[string]any {
			d[1]["embedding"] = []float32{1, 2, 3}
			return d
		}), "input 1: 3 dimensions, want 4", 1},
		{"NaN", 1, 0, raw(nan), "not the JSON of an embeddings answer", -1},
		{"infinite", 1, 0, raw(inf), "not the JSON of an embeddings answer", -1},
		{"fewer vectors", 4, 0, edited(func(d []map[string]any) []map[string]any { return d[:3] }), "3 vectors for 4 inputs", -1},
		{"duplicate index", 3, 0, edited(func(d []map[string]any) []map[string]any {
			d[2]["index"] = 0
			return d
		}), "vector index 0 appears twice", -1},
		{"index out of range", 2, 0, edited(func(d []map[string]any) []map[string]any {
			d[1]["index"] = 7
			return d
		}), "vector index 7 out of range for 2 inputs", -1},
		{"all zeros", 2, 0, edited(func(d []map[string]any) []map[string]any {
			d[0]["embedding"] = []float32{0, 0, 0, 0}
			return d
		}), "input 0: every value is zero", 0},
		{"not JSON", 1, 0, raw(`<html>proxy error</html>`), "not the JSON", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.then(tc.step)
			o, w, tr := newClient(t, f.srv.URL, OpenAIConfig{Dims: tc.dims})
			got, err := o.Embed(context.Background(), texts(tc.n))
			var e *Error
			if !errors.As(err, &e) || e.Kind != BadAnswer {
				t.Fatalf("error %v, want a BadAnswer *Error", err)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "test-embed") {
				t.Errorf("error %q should name the model and say %q", err, tc.want)
			}
			if len(got) != 0 || len(f.requests()) != 1 || len(w.all()) != 0 {
				t.Errorf("%d vectors, %d requests, waits %v: want none returned, no retry", len(got), len(f.requests()), w.all())
			}
			if s := tr.Status(); !strings.HasPrefix(s.LastError, "bad answer: ") || s.Since.IsZero() {
				t.Errorf("status %+v", s)
			}
		})
	}
}

// A 429 waits what Retry-After says (seconds or a date), then succeeds;
// a 5xx backs off doubling; a 401 is not retried.
func TestOpenAIRetries(t *testing.T) {
	f := newFake(t)
	f.then(status(429, "Retry-After", "7"), status(503), status(500))
	o, w, tr := newClient(t, f.srv.URL, OpenAIConfig{Backoff: 100 * time.Millisecond})
	got, err := o.Embed(context.Background(), texts(2))
	if err != nil || len(got) != 2 {
		t.Fatalf("after 429, 503, 500 then success: %d vectors, %v", len(got), err)
	}
	if want := []time.Duration{7 * time.Second, 200 * time.Millisecond, 400 * time.Millisecond}; !slices.Equal(w.all(), want) {
		t.Errorf("waits %v, want %v", w.all(), want)
	}
	if s := tr.Status(); s.LastError != "" || !s.Since.IsZero() {
		t.Errorf("status after recovery %+v, want clear", s)
	}

	date := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	f.then(status(429, "Retry-After", date))
	o, w, _ = newClient(t, f.srv.URL, OpenAIConfig{MaxWait: time.Hour})
	if _, err := o.Embed(context.Background(), texts(1)); err != nil {
		t.Fatal(err)
	}
	if d := w.all(); len(d) != 1 || d[0] < 80*time.Second || d[0] > 91*time.Second {
		t.Errorf("Retry-After as a date 90 s ahead: waited %v", d)
	}

	// Retry-After is capped by MaxWait.
	f.then(status(429, "Retry-After", "3600"))
	o, w, _ = newClient(t, f.srv.URL, OpenAIConfig{MaxWait: 5 * time.Second})
	if _, err := o.Embed(context.Background(), texts(1)); err != nil {
		t.Fatal(err)
	}
	if d := w.all(); !slices.Equal(d, []time.Duration{5 * time.Second}) {
		t.Errorf("Retry-After 3600 with MaxWait 5 s: waited %v", d)
	}

	// Rate limited every time: the error says so once retries are spent.
	for range 3 {
		f.then(status(429, "Retry-After", "1"))
	}
	o, w, tr = newClient(t, f.srv.URL, OpenAIConfig{Retries: 2})
	_, err = o.Embed(context.Background(), texts(1))
	var e *Error
	if !errors.As(err, &e) || e.Kind != RateLimited || len(w.all()) != 2 {
		t.Errorf("429 three times with 2 retries: %v after waits %v", err, w.all())
	}
	if s := tr.Status().String(); s != "embeddings: 0 of 0; rate limited (HTTP 429) since 10:02" {
		t.Errorf("status line %q", s)
	}

	f.then(status(401))
	o, w, _ = newClient(t, f.srv.URL, OpenAIConfig{})
	_, err = o.Embed(context.Background(), texts(1))
	if !errors.As(err, &e) || e.Kind != Refused || e.Status != 401 || len(w.all()) != 0 {
		t.Errorf("401: %v, waits %v; want Refused, no retry", err, w.all())
	}
}

func TestOpenAIDownAndSlow(t *testing.T) {
	f := newFake(t)
	url := f.srv.URL
	f.srv.Close()
	o, w, tr := newClient(t, url, OpenAIConfig{Retries: 3})
	_, err := o.Embed(context.Background(), texts(2))
	var e *Error
	if !errors.As(err, &e) || e.Kind != Unreachable || len(w.all()) != 3 {
		t.Fatalf("down: %v after %d waits; want Unreachable after 3", err, len(w.all()))
	}
	tr.SetProgress(12000, 100000)
	if s := tr.Status().String(); s != "embeddings: 12,000 of 100,000; endpoint unreachable since 10:02" {
		t.Errorf("status line %q", s)
	}

	// Slow past the timeout once, then answering: a timeout, one retry, done.
	slow := newFake(t)
	slow.then(func(w http.ResponseWriter, in []string) bool {
		time.Sleep(300 * time.Millisecond)
		answer(w, in, nil)
		return true
	})
	o, w, _ = newClient(t, slow.srv.URL, OpenAIConfig{Timeout: 50 * time.Millisecond})
	got, err := o.Embed(context.Background(), texts(3))
	if err != nil || len(got) != 3 || len(w.all()) != 1 {
		t.Errorf("slow once: %d vectors, %v, waits %v", len(got), err, w.all())
	}
	slow.then(func(w http.ResponseWriter, in []string) bool {
		time.Sleep(300 * time.Millisecond)
		return false
	})
	o, _, _ = newClient(t, slow.srv.URL, OpenAIConfig{Timeout: 50 * time.Millisecond, Retries: 1})
	slow.then(func(w http.ResponseWriter, in []string) bool { time.Sleep(300 * time.Millisecond); return false })
	_, err = o.Embed(context.Background(), texts(1))
	if !errors.As(err, &e) || e.Kind != Timeout || !strings.Contains(err.Error(), "timed out") {
		t.Errorf("slow every time: %v, want Timeout", err)
	}
}

// A failure in a later batch returns the earlier batches' vectors; a
// cancelled context ends the waits at once.
func TestOpenAIKeepsEarlierBatches(t *testing.T) {
	f := newFake(t)
	f.then(func(http.ResponseWriter, []string) bool { return false }, status(400))
	o, _, _ := newClient(t, f.srv.URL, OpenAIConfig{BatchSize: 2})
	in := texts(5)
	got, err := o.Embed(context.Background(), in)
	if err == nil || len(got) != 2 || !slices.Equal(got[1], vec(in[1])) {
		t.Errorf("second batch refused: %d vectors, %v; want the first batch's 2", len(got), err)
	}

	f.then(status(503))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o2, err := NewOpenAI(OpenAIConfig{BaseURL: f.srv.URL + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := o2.Embed(ctx, texts(1)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Error("a cancelled context waited out the backoff")
	}
}

func TestOpenAIInputsAndConfig(t *testing.T) {
	f := newFake(t)
	o, _, _ := newClient(t, f.srv.URL, OpenAIConfig{MaxInputChars: 100})
	long := strings.Repeat("héllo wörld ", 5000/2) // a task of 5,000 words
	if _, err := o.Embed(context.Background(), []string{long, "ok"}); err != nil {
		t.Fatal(err)
	}
	sent := f.requests()[0][0]
	if n := utf8.RuneCountInString(sent); n != 100 || !utf8.ValidString(sent) {
		t.Errorf("a 5,000-word text went out as %d characters (valid UTF-8: %v)", n, utf8.ValidString(sent))
	}
	if _, err := o.Embed(context.Background(), []string{"a", "  "}); err == nil || !strings.Contains(err.Error(), "input 1 is empty") {
		t.Errorf("empty input: %v", err)
	}
	if len(f.requests()) != 1 {
		t.Error("an empty input reached the endpoint")
	}
	// Dims learned from the first answer bind later ones.
	f.then(edited(func(d []map[string]any) []map[string]any {
		d[0]["embedding"] = []float32{1, 2, 3, 4, 5}
		return d
	}))
	if _, err := o.Embed(context.Background(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "5 dimensions, want 4") {
		t.Errorf("a later answer of other dims: %v", err)
	}
	for _, tc := range []struct {
		cfg  OpenAIConfig
		want string
	}{
		{OpenAIConfig{Model: "m"}, "no base_url"},
		{OpenAIConfig{BaseURL: "http://x"}, "no model"},
		{OpenAIConfig{BaseURL: "http://x", Model: "m", APIKeyEnv: "MEMREVIEW_TEST_UNSET_KEY"}, "MEMREVIEW_TEST_UNSET_KEY, which is not set"},
	} {
		if _, err := NewOpenAI(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewOpenAI(%+v): %v, want %q", tc.cfg, err, tc.want)
		}
	}
}
