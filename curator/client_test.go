package curator

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
)

var skipThenFinish = []reply{
	toolReply(call{"c1", "propose_skip", `{"targets":[],"rationale":"fine","evidence":[],"probe_runs":[]}`}),
	toolReply(call{"c2", "finish", `{"summary":"s"}`}),
}

func curateOnce(t *testing.T, st *store.Store, llm LLM) (*Run, error) {
	t.Helper()
	return Curate(context.Background(), Deps{Store: st, LLM: llm}, []string{"traj_1"}, Options{})
}

func TestRetry500ThenSuccess(t *testing.T) {
	t.Parallel()
	st := newBank(t)
	f := newFakeLLM(t, append([]reply{errReply(500, nil)}, skipThenFinish...)...)
	sl := &sleeper{}
	run, err := curateOnce(t, st, testLLM(f, sl, nil))
	if err != nil {
		t.Fatal(err)
	}
	f.done()
	if len(f.requests()) != 3 || run.Steps != 2 || queueLen(t, st) != 1 {
		t.Errorf("%d requests, %d steps, queue %d", len(f.requests()), run.Steps, queueLen(t, st))
	}
	if want := []time.Duration{10 * time.Millisecond}; !reflect.DeepEqual(sl.waits, want) {
		t.Errorf("waits = %v, want the backoff %v", sl.waits, want)
	}
}

func TestRetry429HonoursRetryAfter(t *testing.T) {
	t.Parallel()
	for name, h := range map[string]string{
		"seconds":   "1",
		"http date": time.Now().Add(2 * time.Second).UTC().Format(http.TimeFormat),
	} {
		t.Run(name, func(t *testing.T) {
			st := newBank(t)
			f := newFakeLLM(t, append([]reply{errReply(429, map[string]string{"Retry-After": h})}, skipThenFinish...)...)
			sl := &sleeper{}
			if _, err := curateOnce(t, st, testLLM(f, sl, nil)); err != nil {
				t.Fatal(err)
			}
			f.done()
			if len(sl.waits) != 1 || sl.waits[0] < 500*time.Millisecond || sl.waits[0] > 2*time.Second {
				t.Errorf("waits = %v, want the Retry-After (%s)", sl.waits, h)
			}
			if name == "seconds" && sl.waits[0] != time.Second {
				t.Errorf("wait = %v, want exactly 1s", sl.waits[0])
			}
		})
	}
}

func TestRetriesRunOut(t *testing.T) {
	t.Parallel()
	st := newBank(t)
	f := newFakeLLM(t, skipThenFinish[0], errReply(500, nil), errReply(500, nil), errReply(500, nil))
	sl := &sleeper{}
	_, err := curateOnce(t, st, testLLM(f, sl, nil))
	if err == nil {
		t.Fatal("no error")
	}
	f.done()
	want := "curator: the model server at " + f.url() + ` answered 500 Internal Server Error three times ("scripted failure") while curating traj_1 (step 2); check the server's logs`
	if err.Error() != want {
		t.Errorf("err = %q\nwant  %q", err, want)
	}
	if len(sl.waits) != 2 || queueLen(t, st) != 0 {
		t.Errorf("waits %v, queue %d (a failed run must leave no proposal)", sl.waits, queueLen(t, st))
	}
}

func TestStatusHints(t *testing.T) {
	t.Parallel()
	for code, want := range map[int]string{
		401: "answered 401 Unauthorized (\"scripted failure\") while curating traj_1 (step 1); check OPENAI_API_KEY",
		404: `check OPENAI_BASE_URL (it usually ends in /v1) and that model "test-model" exists there`,
		400: `check that model "test-model" supports tool calls and JSON-schema answers`,
	} {
		st := newBank(t)
		f := newFakeLLM(t, errReply(code, nil))
		_, err := curateOnce(t, st, testLLM(f, &sleeper{}, nil))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%d: err = %v, want %q", code, err, want)
		}
		f.done()
	}
}

func TestHTTPTimeout(t *testing.T) {
	t.Parallel()
	st := newBank(t)
	f := newFakeLLM(t, skipThenFinish[0], reply{status: 200, delay: 3 * time.Second, body: skipThenFinish[1].body})
	start := time.Now()
	_, err := curateOnce(t, st, testLLM(f, &sleeper{}, func(s *Settings) { s.HTTPTimeout = 200 * time.Millisecond }))
	if err == nil {
		t.Fatal("no error")
	}
	want := "curator: the model server at " + f.url() + " did not answer within 200ms (the HTTP timeout) while curating traj_1 (step 2); check that it is running and not overloaded"
	if err.Error() != want {
		t.Errorf("err = %q\nwant  %q", err, want)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
	if n := queueLen(t, st); n != 0 || len(f.requests()) != 2 {
		t.Errorf("queue %d (want 0), %d requests (timeouts are not retried)", n, len(f.requests()))
	}
}

func TestRunTimeout(t *testing.T) {
	t.Parallel()
	st := newBank(t)
	f := newFakeLLM(t, reply{status: 200, delay: 3 * time.Second, body: skipThenFinish[0].body})
	_, err := curateOnce(t, st, testLLM(f, &sleeper{}, func(s *Settings) { s.RunTimeout = 200 * time.Millisecond }))
	if err == nil {
		t.Fatal("no error")
	}
	mustContain(t, "error", err.Error(), "curator: the run passed its time limit of 200ms while curating traj_1 (step 1)", "raise timeout in memreview.toml [curator]")
	if n := queueLen(t, st); n != 0 {
		t.Errorf("queue %d", n)
	}
}

func TestNoChoices(t *testing.T) {
	t.Parallel()
	st := newBank(t)
	f := newFakeLLM(t, skipThenFinish[0], reply{status: 200, body: `{"id":"x","object":"chat.completion","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":0}}`})
	_, err := curateOnce(t, st, testLLM(f, &sleeper{}, nil))
	if err == nil {
		t.Fatal("no error")
	}
	want := "curator: the model server at " + f.url() + ` answered with no choices while curating traj_1 (step 2); check that model "test-model" is served there and can answer chat completions`
	if err.Error() != want {
		t.Errorf("err = %q\nwant  %q", err, want)
	}
	if n := queueLen(t, st); n != 0 {
		t.Errorf("queue %d", n)
	}
}

func TestUnreachableServer(t *testing.T) {
	t.Parallel()
	st := newBank(t)
	f := newFakeLLM(t)
	llm := testLLM(f, &sleeper{}, nil)
	f.srv.Close()
	_, err := curateOnce(t, st, llm)
	if err == nil || !strings.HasPrefix(err.Error(), "curator: could not reach the model server at "+f.url()+" while curating traj_1 (step 1)") ||
		!strings.HasSuffix(err.Error(), "check OPENAI_BASE_URL and that the server is running") {
		t.Errorf("err = %v", err)
	}
}

func TestSettingsFromEnv(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_MODEL", "")
	cfg := review.CuratorConfig{Model: "toml-model", BaseURL: "http://toml:1/v1/", Timeout: "90s", MaxSteps: 7}
	s := SettingsFromEnv(cfg, "")
	if s.BaseURL != "http://toml:1/v1" || s.Model != "toml-model" || s.RunTimeout != 90*time.Second || s.MaxSteps != 7 ||
		s.HTTPTimeout != DefaultHTTPTimeout || s.MaxTokens != DefaultMaxTokens || s.MaxRetries != DefaultMaxRetries || s.APIKey != "" {
		t.Errorf("from toml: %+v", s)
	}
	t.Setenv("OPENAI_BASE_URL", "http://localhost:8080/v1")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	s = SettingsFromEnv(review.CuratorConfig{Model: "toml-model", Timeout: "soon"}, "flag-model")
	if s.BaseURL != "http://localhost:8080/v1" || s.Model != "flag-model" || s.APIKey != "sk-test" || s.RunTimeout != DefaultRunTimeout || s.MaxSteps != DefaultMaxSteps {
		t.Errorf("from env and flag: %+v", s)
	}
	t.Setenv("OPENAI_BASE_URL", "")
	if s := SettingsFromEnv(review.CuratorConfig{}, ""); s.BaseURL != DefaultBaseURL || s.Model != DefaultModel || s.NoEndpoint || s.Ready() != nil {
		t.Errorf("defaults with a key: %+v (ready: %v)", s, s.Ready())
	}
	// No endpoint and no key: the default endpoint is nobody's choice.
	for _, key := range []string{"", "none"} {
		t.Setenv("OPENAI_API_KEY", key)
		if s := SettingsFromEnv(review.CuratorConfig{}, ""); !s.NoEndpoint || s.Ready() == nil {
			t.Errorf("no endpoint, key %q: %+v is ready", key, s)
		}
		if s := SettingsFromEnv(review.CuratorConfig{BaseURL: "http://localhost:11434/v1"}, ""); s.NoEndpoint {
			t.Errorf("[curator] base_url, key %q: %+v is not ready", key, s)
		}
	}
}

func TestAPIKeyHeader(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]string{"": "", "none": "", "sk-1": "Bearer sk-1"} {
		f := newFakeLLM(t, completion(map[string]any{"role": "assistant", "content": `{"task":"t"}`}))
		tr := testTrajectory(false)
		llm := NewLLM(Settings{BaseURL: f.url(), APIKey: key, Model: "m"})
		if _, err := distillOnly(context.Background(), llm, &tr); err != nil {
			t.Fatal(err)
		}
		if got := f.requests()[0].auth; got != want {
			t.Errorf("key %q: Authorization %q, want %q", key, got, want)
		}
	}
}

func TestRetryAfterParse(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"1": time.Second, "0": 0, "120": 2 * time.Minute,
		now.Add(5 * time.Second).Format(http.TimeFormat):  5 * time.Second,
		now.Add(-5 * time.Second).Format(http.TimeFormat): 0,
	} {
		if got, ok := retryAfter(v, now); !ok || got != want {
			t.Errorf("retryAfter(%q) = %v, %t; want %v", v, got, ok, want)
		}
	}
	for _, v := range []string{"", "-1", "soon"} {
		if _, ok := retryAfter(v, now); ok {
			t.Errorf("retryAfter(%q) accepted", v)
		}
	}
	rt := &RetryTransport{MaxWait: 3 * time.Second}
	resp := &http.Response{Header: http.Header{"Retry-After": {"3600"}}}
	if d := rt.wait(resp, 1); d != 3*time.Second {
		t.Errorf("Retry-After 3600 with MaxWait 3s waits %v", d)
	}
	if d := (&RetryTransport{}).wait(&http.Response{Header: http.Header{}}, 2); d != 400*time.Millisecond {
		t.Errorf("default backoff 2 = %v", d)
	}
}
