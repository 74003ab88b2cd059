package telemetry

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	coltrace "go.opentelemetry.io/proto/slim/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/slim/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// TestOTLPExport: what the exporter POSTs decodes as the collector's
// request, with the headers of both variables (the traces one winning),
// the span's parent, kind, status, event and every attribute type.
func TestOTLPExport(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "api-key=general,x-team=mem%20ops")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "api-key=traces")
	got := make(chan *coltrace.ExportTraceServiceRequest, 4)
	hdr := make(chan http.Header, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req coltrace.ExportTraceServiceRequest
		if r.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(body, &req) != nil {
			http.Error(w, "want a protobuf ExportTraceServiceRequest", http.StatusBadRequest)
			return
		}
		got <- &req
		hdr <- r.Header
	}))
	defer srv.Close()
	tr, err := New(Config{Endpoint: srv.URL + "/v1/traces", Store: "bank", Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, parent := tr.tr.Start(context.Background(), "parent")
	_, sp := tr.tr.Start(ctx, "child", trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(
		attribute.Bool("b", true), attribute.Int("i", -7), attribute.Float64("f", 0.5), attribute.String("s", "x"),
		attribute.StringSlice("ss", []string{"a", "b"}), attribute.Int64Slice("is", []int64{1, 2})))
	sp.AddEvent("ev", trace.WithAttributes(attribute.String("k", "v")))
	sp.SetStatus(codes.Error, "it broke")
	sp.End()
	parent.End()
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	req, h := <-got, <-hdr
	if h.Get("Api-Key") != "traces" || h.Get("X-Team") != "mem ops" {
		t.Errorf("headers: %v", h)
	}
	if len(req.ResourceSpans) != 1 || len(req.ResourceSpans[0].ScopeSpans) != 1 {
		t.Fatalf("want one resource and one scope: %v", req)
	}
	var res string
	for _, kv := range req.ResourceSpans[0].Resource.Attributes {
		if kv.Key == "service.name" {
			res = kv.Value.GetStringValue()
		}
	}
	if res != "memreview" {
		t.Errorf("service.name %q", res)
	}
	ss := req.ResourceSpans[0].ScopeSpans[0]
	if ss.Scope.Name != "github.com/memreview/memreview" || ss.Scope.Version != "test" || len(ss.Spans) != 2 {
		t.Fatalf("scope %v with %d spans", ss.Scope, len(ss.Spans))
	}
	byName := map[string]*tracepb.Span{}
	for _, s := range ss.Spans {
		byName[s.Name] = s
	}
	c, p := byName["child"], byName["parent"]
	if c == nil || p == nil || string(c.ParentSpanId) != string(p.SpanId) || string(c.TraceId) != string(p.TraceId) || len(p.ParentSpanId) != 0 {
		t.Fatalf("parent link lost: child %v parent %v", c, p)
	}
	if c.Kind != tracepb.Span_SPAN_KIND_SERVER || c.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || c.Status.GetMessage() != "it broke" {
		t.Errorf("kind %v status %v", c.Kind, c.Status)
	}
	if c.EndTimeUnixNano < c.StartTimeUnixNano || c.StartTimeUnixNano == 0 {
		t.Errorf("times %d–%d", c.StartTimeUnixNano, c.EndTimeUnixNano)
	}
	if len(c.Events) != 1 || c.Events[0].Name != "ev" || c.Events[0].Attributes[0].Value.GetStringValue() != "v" {
		t.Errorf("events %v", c.Events)
	}
	attrs := map[string]string{}
	for _, kv := range c.Attributes {
		attrs[kv.Key] = kv.Value.String()
	}
	want := map[string]string{"b": "bool_value:true", "i": "int_value:-7", "f": "double_value:0.5", "s": `string_value:"x"`,
		"ss": `array_value:{values:{string_value:"a"} values:{string_value:"b"}}`, "is": "array_value:{values:{int_value:1} values:{int_value:2}}"}
	for k, v := range want {
		if got := attrs[k]; normalise(got) != normalise(v) {
			t.Errorf("attribute %s = %s, want %s", k, got, v)
		}
	}
}

// normalise drops the spaces prototext may put in at random.
func normalise(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' {
			out = append(out, s[i])
		}
	}
	return string(out)
}

// TestOTLPRefused: a collector's refusal is an error naming its status
// and what it said (the dropping wrapper turns it into the one warning);
// a headers variable that is not key=value is refused when the tracer
// starts.
func TestOTLPRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "quota exceeded", http.StatusTooManyRequests)
	}))
	defer srv.Close()
	e, err := newOTLPHTTP(srv.URL, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.ExportSpans(context.Background(), nil); err != nil {
		t.Fatalf("nothing to send: %v", err)
	}
	err = e.ExportSpans(context.Background(), tracetest.SpanStubs{{Name: "x"}}.Snapshots())
	if want := "429 Too Many Requests: quota exceeded"; err == nil || err.Error() != want {
		t.Fatalf("refusal: %v, want %q", err, want)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "api-key")
	if _, err := New(Config{Endpoint: srv.URL}); err == nil || !strings.Contains(err.Error(), `OTEL_EXPORTER_OTLP_HEADERS: "api-key" is not key=value`) {
		t.Fatalf("a header without = : %v", err)
	}
}
