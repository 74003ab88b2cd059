package formats

// The common case of OTLP JSON decoded into typed structs in one pass
// (the generic path in otel.go re-reads nested values level by level and
// is kept for the shapes these structs do not take, and for its errors).

import (
	"encoding/json"
	"strings"
)

type otlpExport struct {
	ResourceSpans []struct {
		ScopeSpans []struct {
			Spans []otlpSpan `json:"spans"`
		} `json:"scopeSpans"`
		InstrumentationLibrarySpans []struct {
			Spans []otlpSpan `json:"spans"`
		} `json:"instrumentationLibrarySpans"`
	} `json:"resourceSpans"`
}

type otlpSpan struct {
	TraceID      string   `json:"traceId"`
	SpanID       string   `json:"spanId"`
	ParentSpanID string   `json:"parentSpanId"`
	Name         string   `json:"name"`
	Start        rawValue `json:"startTimeUnixNano"`
	End          rawValue `json:"endTimeUnixNano"`
	Attributes   []otlpKV `json:"attributes"`
	Events       []struct {
		Attributes []otlpKV `json:"attributes"`
	} `json:"events"`
	Status *struct { // code is 2 or "STATUS_CODE_ERROR" for an error
		Code    rawValue `json:"code"`
		Message string   `json:"message"`
	} `json:"status"`
}

type otlpKV struct {
	Key   string `json:"key"`
	Value struct {
		StringValue *string  `json:"stringValue"`
		IntValue    rawValue `json:"intValue"`
		DoubleValue rawValue `json:"doubleValue"`
		BoolValue   rawValue `json:"boolValue"`
		Other       rawValue `json:"arrayValue"`
		KV          rawValue `json:"kvlistValue"`
	} `json:"value"`
}

// fastOTLP decodes an OTLP export; ok is false when it does not fit the
// structs (the caller then takes the generic path).
func fastOTLP(raw rawValue) ([]*span, bool) {
	var ex otlpExport
	if json.Unmarshal(raw, &ex) != nil {
		return nil, false
	}
	var out []*span
	for i, rs := range ex.ResourceSpans {
		scopes, key := rs.ScopeSpans, "scopeSpans"
		if len(scopes) == 0 {
			scopes, key = rs.InstrumentationLibrarySpans, "instrumentationLibrarySpans"
		}
		for j, sc := range scopes {
			for k := range sc.Spans {
				s, ok := sc.Spans[k].span()
				if !ok {
					return nil, false
				}
				s.otlp, s.scopeKey = &[3]int{i, j, k}, key
				out = append(out, s)
			}
		}
	}
	return out, true
}

func (o *otlpSpan) span() (*span, bool) {
	s := &span{trace: o.TraceID, id: o.SpanID, parent: o.ParentSpanID, name: o.Name, attrs: make(map[string]rawValue, len(o.Attributes)),
		attrsAt: "attributes", traceField: "traceId"}
	var ok bool
	if !isNull(o.Start) {
		if s.start, ok = parseTime(o.Start); !ok {
			return nil, false // the generic path names the field
		}
	}
	s.end, _ = parseTime(o.End)
	for _, kv := range o.Attributes {
		if kv.Key == "" {
			return nil, false
		}
		kv.put(s.attrs)
	}
	for _, e := range o.Events {
		ea := map[string]rawValue{}
		for _, kv := range e.Attributes {
			kv.put(ea)
		}
		s.eventAttrs(ea)
	}
	if o.Status != nil {
		code := strings.ToUpper(str(o.Status.Code))
		if code == "2" || strings.Contains(code, "ERROR") {
			s.errMsg = firstNonEmpty(o.Status.Message, "error")
		}
	}
	return s, true
}

// put adds the attribute to attrs as plain JSON.
func (kv *otlpKV) put(attrs map[string]rawValue) {
	v := kv.Value
	switch {
	case v.StringValue != nil:
		b, _ := json.Marshal(*v.StringValue)
		attrs[kv.Key] = b
	case v.IntValue != nil:
		if t := str(v.IntValue); t != "" {
			attrs[kv.Key] = rawValue(t)
		}
	case v.DoubleValue != nil:
		attrs[kv.Key] = v.DoubleValue
	case v.BoolValue != nil:
		attrs[kv.Key] = v.BoolValue
	case v.Other != nil:
		flatten(attrs, kv.Key, anyValue([]byte(`{"arrayValue":`+string(v.Other)+`}`)))
	case v.KV != nil:
		flatten(attrs, kv.Key, anyValue([]byte(`{"kvlistValue":`+string(v.KV)+`}`)))
	}
}
