package telemetry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/memreview/memreview/review"
)

type warnings struct {
	mu sync.Mutex
	n  int
}

func (w *warnings) warnf(string, ...any) { w.mu.Lock(); w.n++; w.mu.Unlock() }
func (w *warnings) count() int           { w.mu.Lock(); defer w.mu.Unlock(); return w.n }

func emit(tr *Tracer, n int) {
	for i := range n {
		tr.Search(context.Background(), "q", "", nil, 5, "c", "").Found([]Hit{{ID: "mem_1"}}, nil)
		tr.Proposals(context.Background(), time.Now(), []review.Proposal{{ID: "prop_" + string(rune('a'+i%26)), Op: review.OpCreate}})
	}
}

// TestEndpointDownDropsWithOneWarning: spans to an endpoint that refuses
// connections are dropped, every batch, with one warning in all.
func TestEndpointDownDropsWithOneWarning(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/v1/traces"
	srv.Close() // nothing listens there now
	var w warnings
	tr, err := New(Config{Endpoint: url, Warnf: w.warnf, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		emit(tr, 5)
		tr.Flush(context.Background())
	}
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := w.count(); n != 1 {
		t.Fatalf("%d warnings for three failed exports, want 1", n)
	}
}

// TestSlowEndpointNeverHoldsTheCaller: with the endpoint stuck, emitting
// far more spans than the queue holds returns at once (the surplus is
// dropped), and shutdown gives up when its context ends.
func TestSlowEndpointNeverHoldsTheCaller(t *testing.T) {
	stuck := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stuck:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(stuck)
	var w warnings
	tr, err := New(Config{Endpoint: srv.URL + "/v1/traces", Warnf: w.warnf, Timeout: 30 * time.Second, QueueSize: 16})
	if err != nil {
		t.Fatal(err)
	}
	emit(tr, 5000) // 10,000 spans into a queue of 16: would block here if the queue did
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	tr.Shutdown(ctx) // returns when ctx ends, the export still stuck
	if ctx.Err() == nil {
		t.Fatal("shutdown returned before its deadline although the endpoint never answered")
	}
}

// TestOffCostsNothing: without an endpoint there is no tracer, and a nil
// tracer's spans allocate nothing.
func TestOffCostsNothing(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	cfg, err := Resolve(Settings{})
	if err != nil || cfg.Endpoint != "" {
		t.Fatalf("resolve with nothing set: %+v %v", cfg, err)
	}
	tr, err := New(cfg)
	if tr != nil || err != nil {
		t.Fatalf("New without an endpoint: %v %v", tr, err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		tr.Search(context.Background(), "q", "", nil, 5, "c", "").Found(nil, nil)
		tr.Proposals(context.Background(), time.Time{}, nil)
		tr.Decision(context.Background(), time.Time{}, nil)
	})
	if allocs != 0 {
		t.Fatalf("a nil tracer allocates %v a call", allocs)
	}
}

func TestResolve(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/")
	if c, _ := Resolve(Settings{Endpoint: "http://other:4318"}); c.Endpoint != "http://collector:4318/v1/traces" {
		t.Fatalf("env over settings: %q", c.Endpoint)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	if c, _ := Resolve(Settings{Endpoint: "http://other:4318", CaptureContent: true}); c.Endpoint != "http://other:4318/v1/traces" || !c.CaptureContent {
		t.Fatalf("settings: %+v", c)
	}
	t.Setenv("OTEL_SDK_DISABLED", "true")
	if c, _ := Resolve(Settings{Endpoint: "http://other:4318"}); c.Endpoint != "" {
		t.Fatalf("OTEL_SDK_DISABLED: %q", c.Endpoint)
	}
	t.Setenv("OTEL_SDK_DISABLED", "")
	if _, err := Resolve(Settings{Endpoint: "collector:4318"}); err == nil {
		t.Fatal("an endpoint without a scheme was taken")
	}
}
