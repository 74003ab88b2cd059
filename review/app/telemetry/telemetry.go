// Package telemetry owns memreview's OpenTelemetry spans: the GenAI
// semantic conventions' memory operations (Development status,
// https://github.com/open-telemetry/semantic-conventions-genai,
// docs/gen-ai/gen-ai-spans.md#memory, attributes gen_ai.memory.* in
// docs/registry/attributes/gen-ai.md): search_memory for a retrieval,
// create_memory, update_memory and delete_memory for a proposal (with the
// proposal's id and its status, pending) and for the decision that writes
// records, with the operator; decisions that write nothing are
// memreview.decide spans.
//
// Spans leave through the official Go SDK's batch processor and an
// OTLP/HTTP exporter of this package's own (otlp.go: binary protobuf, the
// OTLP headers variables): asynchronously, from a bounded queue, one
// export at a time with a timeout and no retries, so an endpoint that is down or slow
// never slows memreview; spans that cannot be sent are dropped, with one
// warning. Telemetry is off unless an endpoint is set, and then a nil
// *Tracer costs nothing.
//
// The service (review/app) owns the one Tracer of a process's bank; front
// ends never import this package or the SDK. It may import the domain
// (review) and the OpenTelemetry SDK.
package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Config says where spans go and what they carry.
type Config struct {
	// Endpoint is the OTLP/HTTP traces URL (…/v1/traces); "" is off.
	Endpoint string
	// CaptureContent adds the opt-in attributes that carry text: the
	// query (gen_ai.memory.query.text) and the records' content
	// (gen_ai.memory.records).
	CaptureContent bool
	// Store is gen_ai.memory.store.id: which bank.
	Store string
	// Version is service.version.
	Version string
	// Warnf reports, once, that spans were dropped; nil discards it.
	Warnf func(format string, args ...any)
	// Timeout bounds one export (0: 5 s); QueueSize the spans waiting to
	// be sent (0: 2048), past which new spans are dropped.
	Timeout   time.Duration
	QueueSize int
}

// Settings are what memreview.toml's [telemetry] says.
type Settings struct {
	Endpoint       string // OTLP base URL, as OTEL_EXPORTER_OTLP_ENDPOINT
	CaptureContent bool
}

// Resolve decides the endpoint from the environment, as the OpenTelemetry
// SDKs read it, else from the bank's settings: OTEL_SDK_DISABLED=true or
// OTEL_TRACES_EXPORTER=none turn it off; OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
// is the traces URL as given; OTEL_EXPORTER_OTLP_ENDPOINT (else the
// settings' endpoint) is a base URL that /v1/traces is added to.
// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true (else the
// settings) turns on the content attributes. Headers
// (OTEL_EXPORTER_OTLP_HEADERS) are read by the exporter itself.
func Resolve(set Settings) (Config, error) {
	var c Config
	if strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") || strings.EqualFold(os.Getenv("OTEL_TRACES_EXPORTER"), "none") {
		return c, nil
	}
	switch {
	case os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "":
		c.Endpoint = os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	case os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "":
		c.Endpoint = strings.TrimSuffix(os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT"), "/") + "/v1/traces"
	case set.Endpoint != "":
		c.Endpoint = strings.TrimSuffix(set.Endpoint, "/") + "/v1/traces"
	}
	c.CaptureContent = set.CaptureContent
	if v := os.Getenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"); v != "" {
		c.CaptureContent = strings.EqualFold(v, "true")
	}
	if c.Endpoint != "" {
		if u, err := url.Parse(c.Endpoint); err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			return Config{}, fmt.Errorf("telemetry: the OTLP endpoint %q is not an http:// or https:// URL", c.Endpoint)
		}
	}
	return c, nil
}

// Tracer emits memreview's spans. A nil *Tracer emits nothing.
type Tracer struct {
	tp      *sdktrace.TracerProvider
	tr      trace.Tracer
	store   string
	capture bool
}

// New starts the exporter for cfg; nil (and no error) when cfg has no
// endpoint.
func New(cfg Config) (*Tracer, error) {
	if cfg.Endpoint == "" {
		return nil, nil
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 2048
	}
	exp, err := newOTLPHTTP(cfg.Endpoint, cfg.Timeout)
	if err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(
		attribute.String("service.name", "memreview"), attribute.String("service.version", cfg.Version)))
	if err != nil {
		res = resource.Default()
	}
	if env, err := resource.New(context.Background(), resource.WithFromEnv()); err == nil {
		if merged, err := resource.Merge(res, env); err == nil {
			res = merged
		}
	}
	bsp := sdktrace.NewBatchSpanProcessor(&dropping{SpanExporter: exp, endpoint: cfg.Endpoint, warnf: cfg.Warnf},
		sdktrace.WithMaxQueueSize(cfg.QueueSize), sdktrace.WithMaxExportBatchSize(min(512, cfg.QueueSize)),
		sdktrace.WithBatchTimeout(time.Second), sdktrace.WithExportTimeout(cfg.Timeout))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(bsp), sdktrace.WithResource(res))
	return &Tracer{tp: tp, tr: tp.Tracer("github.com/memreview/memreview", trace.WithInstrumentationVersion(cfg.Version)),
		store: cfg.Store, capture: cfg.CaptureContent}, nil
}

// Shutdown sends what is queued, waiting at most until ctx ends, and
// stops the exporter.
func (t *Tracer) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.tp.Shutdown(ctx)
}

// Flush sends what is queued, waiting at most until ctx ends.
func (t *Tracer) Flush(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.tp.ForceFlush(ctx)
}

// dropping is the exporter with memreview's failure rule: a batch that
// cannot be sent is dropped, the first time with a warning, and never
// reported again (the SDK would log every failed batch).
type dropping struct {
	sdktrace.SpanExporter
	endpoint string
	warnf    func(format string, args ...any)
	once     sync.Once
}

func (d *dropping) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if err := d.SpanExporter.ExportSpans(ctx, spans); err != nil {
		d.once.Do(func() {
			if d.warnf != nil {
				d.warnf("telemetry: %d spans for %s were dropped (%v); memreview goes on without them and says so only once", len(spans), d.endpoint, err)
			}
		})
	}
	return nil
}

// The conventions' names.
const (
	opSearch = "search_memory"
	opCreate = "create_memory"
	opUpdate = "update_memory"
	opDelete = "delete_memory"
	provider = "memreview"
)

// common is what every memory span carries.
func (t *Tracer) common(op string) []attribute.KeyValue {
	return []attribute.KeyValue{attribute.String("gen_ai.operation.name", op), attribute.String("gen_ai.provider.name", provider),
		attribute.String("gen_ai.memory.store.id", t.store)}
}

// Span is one operation in progress; a nil *Span does nothing.
type Span struct {
	t    *Tracer
	span trace.Span
}

// Search starts the search_memory span of one retrieval: the task text
// (recorded only with content capture on), the scope, how many records
// were asked for, who asked and for which task.
func (t *Tracer) Search(ctx context.Context, query, env string, tags []string, k int, client, taskID string) *Span {
	if t == nil {
		return nil
	}
	attrs := append(t.common(opSearch), attribute.Int("memreview.search.k", k))
	if t.capture {
		attrs = append(attrs, attribute.String("gen_ai.memory.query.text", query))
	}
	if env != "" {
		attrs = append(attrs, attribute.String("memreview.scope.env", env))
	}
	if len(tags) > 0 {
		attrs = append(attrs, attribute.StringSlice("memreview.scope.tags", tags))
	}
	if client != "" {
		attrs = append(attrs, attribute.String("memreview.client", client))
	}
	if taskID != "" {
		attrs = append(attrs, attribute.String("memreview.task.id", taskID))
	}
	_, sp := t.tr.Start(ctx, opSearch, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(attrs...))
	return &Span{t: t, span: sp}
}

// Hit is one record a search returned.
type Hit struct {
	ID      string
	Score   float64
	Content string
}

// Found ends a search span with what it returned, or its error.
func (s *Span) Found(hits []Hit, err error) {
	if s == nil {
		return
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	s.span.SetAttributes(attribute.Int("gen_ai.memory.record.count", len(hits)), attribute.StringSlice("memreview.record.ids", ids))
	if s.t.capture {
		type rec struct {
			ID      string  `json:"id"`
			Content string  `json:"content"`
			Score   float64 `json:"score"`
		}
		recs := make([]rec, len(hits))
		for i, h := range hits {
			recs[i] = rec{h.ID, h.Content, h.Score}
		}
		b, _ := json.Marshal(recs)
		s.span.SetAttributes(attribute.String("gen_ai.memory.records", string(b)))
	}
	end(s.span, err)
}

func end(sp trace.Span, err error) {
	if err != nil {
		sp.SetAttributes(attribute.String("error.type", errorType(err)))
		sp.SetStatus(codes.Error, err.Error())
	}
	sp.End()
}

// errorType names an error's kind for error.type: its Go type, or
// _OTHER as the conventions say for errors without one.
func errorType(err error) string {
	for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(err) {
		err = u
	}
	if t := fmt.Sprintf("%T", err); t != "*errors.errorString" && t != "*fmt.wrapError" {
		return t
	}
	return "_OTHER"
}
