package formats

// OpenTelemetry GenAI and OpenInference traces: OTLP JSON
// (resourceSpans → scopeSpans → spans, typed attribute values, also one
// export per line), a JSON array or JSON Lines of spans (OTLP spans or the
// SDK console exporter's {context, parent_id, attributes}), or bare span
// attribute maps. spans.go turns the spans into runs.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/memreview/memreview/review"
)

func init() {
	register(&Format{Name: "otel", Kind: Trajectories,
		About: "OpenTelemetry GenAI / OpenInference spans (OTLP JSON, span arrays or lines, attribute maps): runs by trace or conversation id, LLM messages and execute_tool results",
		fits:  fitsOTel, trajectories: readOTel})
}

// isAttrMap reports whether keys are span attributes of the GenAI,
// OpenInference or AI SDK conventions.
func isAttrMap(keys map[string]bool) bool {
	for k := range keys {
		if strings.HasPrefix(k, "gen_ai.") || strings.HasPrefix(k, "llm.") || strings.HasPrefix(k, "openinference.") ||
			strings.HasPrefix(k, "ai.prompt") || strings.HasPrefix(k, "ai.response.") || strings.HasPrefix(k, "ai.result.") ||
			strings.HasPrefix(k, "ai.toolCall.") || k == "ai.operationId" {
			return true
		}
	}
	return false
}

// isSpan reports whether keys are a span's: ids with a name or
// attributes, or a name with attributes (the AI SDK's recorded spans have
// no ids).
func isSpan(keys map[string]bool) bool {
	return (keys["traceId"] || keys["trace_id"] || keys["context"] || keys["spanId"]) && (keys["name"] || keys["attributes"]) ||
		keys["name"] && keys["attributes"]
}

func fitsOTel(in *Input) error {
	sh := in.getShape()
	switch sh.kind {
	case "object":
		if sh.keys["resourceSpans"] || isAttrMap(sh.keys) || isSpan(sh.keys) && telemetrySpan(sh.obj) {
			return nil
		}
	case "array", "lines":
		first, _ := object(sh.first)
		if sh.keys["resourceSpans"] || isSpan(sh.keys) && telemetrySpan(first) || isAttrMap(sh.keys) {
			return nil
		}
	default:
		return errors.New("not JSON")
	}
	return errors.New("no resourceSpans, no spans (traceId/context with name or attributes, or a name with GenAI, OpenInference or AI SDK attributes) and no gen_ai.*, llm.*, openinference.* or ai.* attributes")
}

// telemetrySpan reports whether a span (without ids, its attributes must
// say so) is a trace span.
func telemetrySpan(o map[string]rawValue) bool {
	if o["traceId"] != nil || o["trace_id"] != nil || o["context"] != nil || o["spanId"] != nil {
		return true
	}
	if m, ok := object(o["attributes"]); ok {
		return isAttrMap(keySet(m))
	}
	list, _ := array(o["attributes"])
	keys := map[string]bool{}
	for _, kv := range list {
		kvo, _ := object(kv)
		keys[str(kvo["key"])] = true
	}
	return isAttrMap(keys)
}

func readOTel(in *Input, rep *Report) ([]review.Trajectory, error) {
	var spans []*span
	data := in.data()
	addValue := func(base int64, raw rawValue, line int, path string) error {
		obj, ok := object(raw)
		if !ok {
			return in.errAt(base, raw, path, "want a JSON object (a span, an OTLP export or an attribute map)")
		}
		keys := keySet(obj)
		from := len(spans)
		switch {
		case keys["resourceSpans"]:
			if ss, ok := fastOTLP(raw); ok {
				for _, s := range ss {
					s.base, s.raw, s.path = base, raw, path
				}
				spans = append(spans, ss...)
				break
			}
			ss, err := otlpSpans(in, base, raw, obj, path)
			if err != nil {
				return err
			}
			spans = append(spans, ss...)
		case isSpan(keys):
			s, err := plainSpan(in, base, raw, obj, path)
			if err != nil {
				return err
			}
			spans = append(spans, s)
		default:
			s := &span{attrs: map[string]rawValue{}, base: base, raw: raw, path: path}
			for k, v := range obj {
				flatten(s.attrs, k, v)
			}
			s.input, s.output = obj["input"], obj["output"]
			spans = append(spans, s)
		}
		for _, s := range spans[from:] {
			s.line = line
		}
		return nil
	}
	err := eachValue(in, data, func(off int64, raw rawValue, line int, path string) error {
		if !json.Valid(raw) { // only a JSON Lines line can be invalid here
			var v any
			return in.decodeErr(off, raw, path, json.Unmarshal(raw, &v))
		}
		return addValue(off, raw, line, path)
	})
	if err != nil {
		return nil, err
	}
	for i, s := range spans {
		s.order = i
	}
	if len(spans) == 0 {
		return nil, in.errAt(0, nil, "", "no spans")
	}
	return spanRuns(in, spans, fileID(fileBaseName(in.File), ""), rep)
}

func otlpSpans(in *Input, base int64, raw rawValue, obj map[string]rawValue, path string) ([]*span, error) {
	var out []*span
	rss, ok := array(obj["resourceSpans"])
	if !ok {
		return nil, in.errAt(base, raw, joinPath(path, "resourceSpans"), "want an array")
	}
	for i, rs := range rss {
		rso, _ := object(rs)
		scopeKey := "scopeSpans"
		scopes, ok := array(rso[scopeKey])
		if !ok {
			scopeKey = "instrumentationLibrarySpans"
			scopes, _ = array(rso[scopeKey])
		}
		for j, sc := range scopes {
			sco, _ := object(sc)
			ss, ok := array(sco["spans"])
			if !ok && !isNull(sco["spans"]) {
				return nil, in.errAt(base, raw, fmt.Sprintf("%sresourceSpans[%d].%s[%d].spans", prefixDot(path), i, scopeKey, j), "want an array of spans")
			}
			for k, s := range ss {
				so, ok := object(s)
				p := fmt.Sprintf("%sresourceSpans[%d].%s[%d].spans[%d]", prefixDot(path), i, scopeKey, j, k)
				if !ok {
					return nil, in.errAt(base, raw, p, "want a span object")
				}
				sp, err := plainSpan(in, base, raw, so, p)
				if err != nil {
					return nil, err
				}
				out = append(out, sp)
			}
		}
	}
	return out, nil
}

func prefixDot(path string) string {
	if path == "" {
		return ""
	}
	return path + "."
}

// plainSpan reads one span: OTLP field names (traceId, spanId,
// parentSpanId, startTimeUnixNano, attributes as [{key, value}]) or the
// SDK console exporter's (context.trace_id, parent_id, start_time,
// attributes as a map).
func plainSpan(in *Input, base int64, raw rawValue, o map[string]rawValue, path string) (*span, error) {
	ctx, _ := object(o["context"])
	s := &span{
		id:     firstNonEmpty(str(o["spanId"]), str(o["span_id"]), str(ctx["span_id"])),
		parent: firstNonEmpty(str(o["parentSpanId"]), str(o["parent_span_id"]), str(o["parent_id"])),
		name:   str(o["name"]),
		attrs:  map[string]rawValue{},
		base:   base, raw: raw, path: path, attrsAt: "attributes",
	}
	for _, f := range []string{"traceId", "trace_id", "context.trace_id"} {
		v := o[f]
		if f == "context.trace_id" {
			v = ctx["trace_id"]
		}
		if t := str(v); t != "" {
			s.trace, s.traceField = t, f
			break
		}
	}
	for _, k := range []string{"startTimeUnixNano", "start_time", "startTime"} {
		if t, ok := parseTime(o[k]); ok {
			s.start = t
			break
		} else if !isNull(o[k]) {
			return nil, in.errAt(base, raw, joinPath(path, k), "not a time: %s", textOf(o[k]))
		}
	}
	for _, k := range []string{"endTimeUnixNano", "end_time", "endTime"} {
		if t, ok := parseTime(o[k]); ok {
			s.end = t
			break
		}
	}
	attrs := o["attributes"]
	if list, ok := array(attrs); ok {
		for i, kv := range list {
			kvo, ok := object(kv)
			if !ok || str(kvo["key"]) == "" {
				return nil, in.errAt(base, raw, fmt.Sprintf("%s.attributes[%d].key", path, i), "want {key, value}")
			}
			flatten(s.attrs, str(kvo["key"]), anyValue(kvo["value"]))
		}
	} else if m, ok := object(attrs); ok {
		for k, v := range m {
			flatten(s.attrs, k, v)
		}
	} else if !isNull(attrs) {
		return nil, in.errAt(base, raw, joinPath(path, "attributes"), "want an array of {key, value} or an object")
	}
	events, _ := array(o["events"])
	for _, e := range events {
		eo, _ := object(e)
		ea := map[string]rawValue{}
		if list, ok := array(eo["attributes"]); ok {
			for _, kv := range list {
				kvo, _ := object(kv)
				ea[str(kvo["key"])] = anyValue(kvo["value"])
			}
		} else if m, ok := object(eo["attributes"]); ok {
			ea = m
		}
		s.eventAttrs(ea)
	}
	if st, ok := object(o["status"]); ok {
		code := strings.ToUpper(str(st["code"]) + str(st["status_code"]))
		if code == "2" || strings.Contains(code, "ERROR") {
			s.errMsg = firstNonEmpty(str(st["message"]), str(st["description"]), "error")
		}
	}
	return s, nil
}

// anyValue turns an OTLP AnyValue ({stringValue}, {intValue}, {arrayValue:
// {values}}, {kvlistValue: {values}}, …) into plain JSON.
func anyValue(v rawValue) rawValue { return anyValueDepth(v, 0) }

func anyValueDepth(v rawValue, depth int) rawValue {
	if depth > maxFlatten {
		return v // left as written: no real attribute nests this deep
	}
	o, ok := object(v)
	if !ok {
		return v
	}
	for k, x := range o {
		switch k {
		case "stringValue", "boolValue", "doubleValue", "bytesValue":
			return x
		case "intValue":
			if s := str(x); s != "" {
				return rawValue(s)
			}
			return x
		case "arrayValue":
			ao, _ := object(x)
			vals, _ := array(ao["values"])
			out := make([]rawValue, len(vals))
			for i, e := range vals {
				out[i] = anyValueDepth(e, depth+1)
			}
			b, _ := json.Marshal(out)
			return b
		case "kvlistValue":
			ko, _ := object(x)
			vals, _ := array(ko["values"])
			out := map[string]rawValue{}
			for _, e := range vals {
				eo, _ := object(e)
				out[str(eo["key"])] = anyValueDepth(eo["value"], depth+1)
			}
			b, _ := json.Marshal(out)
			return b
		}
	}
	return v
}

func fileBaseName(file string) string {
	b := file
	if i := strings.LastIndexAny(b, `/\`); i >= 0 {
		b = b[i+1:]
	}
	if i := strings.LastIndexByte(b, '.'); i > 0 {
		b = b[:i]
	}
	if b == "" || b == "-" {
		return "trace"
	}
	return b
}
