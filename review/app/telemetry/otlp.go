package telemetry

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	coltrace "go.opentelemetry.io/proto/slim/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/slim/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/slim/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/slim/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpHTTP is an OTLP/HTTP traces exporter (binary protobuf, one POST a
// batch, no retries): what the SDK's otlptracehttp does for memreview's
// use, written here because that module's generated collector code pulls
// gRPC, its gateway and html/template into every binary that links the
// service (0.4–0.6 s more to link each of the suite's test binaries). The
// messages are the project's own, from the slim module (no gRPC).
type otlpHTTP struct {
	url     string
	headers http.Header
	client  *http.Client
}

func newOTLPHTTP(endpoint string, timeout time.Duration) (*otlpHTTP, error) {
	h, err := otlpHeaders(os.Getenv("OTEL_EXPORTER_OTLP_HEADERS"), os.Getenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS"))
	if err != nil {
		return nil, err
	}
	return &otlpHTTP{url: endpoint, headers: h, client: &http.Client{Timeout: timeout}}, nil
}

// otlpHeaders reads the OTLP headers variables: comma-separated key=value
// pairs, values percent-encoded; the traces-only variable wins for a key
// both name.
func otlpHeaders(general, traces string) (http.Header, error) {
	h := http.Header{}
	for _, v := range []struct{ name, val string }{{"OTEL_EXPORTER_OTLP_HEADERS", general}, {"OTEL_EXPORTER_OTLP_TRACES_HEADERS", traces}} {
		for _, pair := range strings.Split(v.val, ",") {
			if strings.TrimSpace(pair) == "" {
				continue
			}
			k, val, ok := strings.Cut(pair, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return nil, fmt.Errorf("telemetry: %s: %q is not key=value", v.name, pair)
			}
			dec, err := url.PathUnescape(strings.TrimSpace(val))
			if err != nil {
				return nil, fmt.Errorf("telemetry: %s: the value of %q: %v", v.name, k, err)
			}
			h.Set(k, dec)
		}
	}
	return h, nil
}

func (e *otlpHTTP) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	body, err := proto.Marshal(&coltrace.ExportTraceServiceRequest{ResourceSpans: resourceSpans(spans)})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, v := range e.headers {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	resp, err := e.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}

func (e *otlpHTTP) Shutdown(context.Context) error {
	e.client.CloseIdleConnections()
	return nil
}

// resourceSpans groups spans by resource and then by instrumentation
// scope, in the order they came.
func resourceSpans(spans []sdktrace.ReadOnlySpan) []*tracepb.ResourceSpans {
	var out []*tracepb.ResourceSpans
	byRes := map[*resource.Resource]*tracepb.ResourceSpans{}
	type scopeKey struct{ name, version, schema string }
	byScope := map[*tracepb.ResourceSpans]map[scopeKey]*tracepb.ScopeSpans{}
	for _, s := range spans {
		res := s.Resource()
		rs := byRes[res]
		if rs == nil {
			rs = &tracepb.ResourceSpans{Resource: &resourcepb.Resource{Attributes: keyValues(res.Attributes())}, SchemaUrl: res.SchemaURL()}
			byRes[res] = rs
			byScope[rs] = map[scopeKey]*tracepb.ScopeSpans{}
			out = append(out, rs)
		}
		sc := s.InstrumentationScope()
		key := scopeKey{sc.Name, sc.Version, sc.SchemaURL}
		ss := byScope[rs][key]
		if ss == nil {
			ss = &tracepb.ScopeSpans{Scope: &commonpb.InstrumentationScope{Name: sc.Name, Version: sc.Version,
				Attributes: keyValues(sc.Attributes.ToSlice())}, SchemaUrl: sc.SchemaURL}
			byScope[rs][key] = ss
			rs.ScopeSpans = append(rs.ScopeSpans, ss)
		}
		ss.Spans = append(ss.Spans, span(s))
	}
	return out
}

func span(s sdktrace.ReadOnlySpan) *tracepb.Span {
	sc, parent := s.SpanContext(), s.Parent()
	tid, sid := sc.TraceID(), sc.SpanID()
	p := &tracepb.Span{
		TraceId:                tid[:],
		SpanId:                 sid[:],
		TraceState:             sc.TraceState().String(),
		Name:                   s.Name(),
		Kind:                   spanKind(s.SpanKind()),
		StartTimeUnixNano:      unixNano(s.StartTime()),
		EndTimeUnixNano:        unixNano(s.EndTime()),
		Attributes:             keyValues(s.Attributes()),
		DroppedAttributesCount: uint32(max(0, s.DroppedAttributes())),
		DroppedEventsCount:     uint32(max(0, s.DroppedEvents())),
		DroppedLinksCount:      uint32(max(0, s.DroppedLinks())),
		Flags:                  uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK) | uint32(sc.TraceFlags()),
	}
	if parent.IsValid() {
		ps := parent.SpanID()
		p.ParentSpanId = ps[:]
		if parent.IsRemote() {
			p.Flags |= uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK)
		}
	}
	switch st := s.Status(); st.Code {
	case codes.Error:
		p.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: st.Description}
	case codes.Ok:
		p.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK}
	default:
		p.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_UNSET}
	}
	for _, ev := range s.Events() {
		p.Events = append(p.Events, &tracepb.Span_Event{TimeUnixNano: unixNano(ev.Time), Name: ev.Name,
			Attributes: keyValues(ev.Attributes), DroppedAttributesCount: uint32(max(0, ev.DroppedAttributeCount))})
	}
	for _, l := range s.Links() {
		lt, ls := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		p.Links = append(p.Links, &tracepb.Span_Link{TraceId: lt[:], SpanId: ls[:], TraceState: l.SpanContext.TraceState().String(),
			Attributes: keyValues(l.Attributes), DroppedAttributesCount: uint32(max(0, l.DroppedAttributeCount)),
			Flags: uint32(l.SpanContext.TraceFlags())})
	}
	return p
}

func unixNano(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixNano())
}

func spanKind(k trace.SpanKind) tracepb.Span_SpanKind {
	switch k {
	case trace.SpanKindInternal:
		return tracepb.Span_SPAN_KIND_INTERNAL
	case trace.SpanKindServer:
		return tracepb.Span_SPAN_KIND_SERVER
	case trace.SpanKindClient:
		return tracepb.Span_SPAN_KIND_CLIENT
	case trace.SpanKindProducer:
		return tracepb.Span_SPAN_KIND_PRODUCER
	case trace.SpanKindConsumer:
		return tracepb.Span_SPAN_KIND_CONSUMER
	}
	return tracepb.Span_SPAN_KIND_UNSPECIFIED
}

func keyValues(kvs []attribute.KeyValue) []*commonpb.KeyValue {
	if len(kvs) == 0 {
		return nil
	}
	out := make([]*commonpb.KeyValue, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, &commonpb.KeyValue{Key: string(kv.Key), Value: anyValue(kv.Value)})
	}
	return out
}

func anyValue(v attribute.Value) *commonpb.AnyValue {
	a := &commonpb.AnyValue{}
	switch v.Type() {
	case attribute.BOOL:
		a.Value = &commonpb.AnyValue_BoolValue{BoolValue: v.AsBool()}
	case attribute.INT64:
		a.Value = &commonpb.AnyValue_IntValue{IntValue: v.AsInt64()}
	case attribute.FLOAT64:
		a.Value = &commonpb.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}
	case attribute.STRING:
		a.Value = &commonpb.AnyValue_StringValue{StringValue: v.AsString()}
	case attribute.BOOLSLICE:
		a.Value = arrayOf(v.AsBoolSlice(), func(b bool) *commonpb.AnyValue {
			return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: b}}
		})
	case attribute.INT64SLICE:
		a.Value = arrayOf(v.AsInt64Slice(), func(n int64) *commonpb.AnyValue {
			return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: n}}
		})
	case attribute.FLOAT64SLICE:
		a.Value = arrayOf(v.AsFloat64Slice(), func(f float64) *commonpb.AnyValue {
			return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: f}}
		})
	case attribute.STRINGSLICE:
		a.Value = arrayOf(v.AsStringSlice(), func(s string) *commonpb.AnyValue {
			return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: s}}
		})
	default:
		a.Value = &commonpb.AnyValue_StringValue{StringValue: v.String()}
	}
	return a
}

func arrayOf[T any](xs []T, one func(T) *commonpb.AnyValue) *commonpb.AnyValue_ArrayValue {
	vs := make([]*commonpb.AnyValue, len(xs))
	for i, x := range xs {
		vs[i] = one(x)
	}
	return &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: vs}}
}
