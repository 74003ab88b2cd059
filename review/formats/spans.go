package formats

// Spans to runs, shared by the OpenTelemetry/OpenInference and Langfuse
// readers: spans are grouped into runs by conversation id or trace id,
// ordered by start time (parents before children on ties), and each span
// adds what it holds: an LLM call its new input messages and its output
// messages, a tool execution a result linked to its call. Messages an LLM
// call repeats from earlier calls of the run are not added twice.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memreview/memreview/review"
)

type span struct {
	trace, id, parent, name string
	start, end              time.Time
	attrs                   map[string]rawValue // flattened: "a.b.0.c", and every prefix's whole value
	input, output           rawValue            // Langfuse's input/output, or the span's "input"/"output"
	kind                    string              // Langfuse observation type (GENERATION, TOOL, …)
	model                   string
	errMsg                  string            // set when the span ended in error
	calls                   []review.ToolCall // calls a producer lists beside the output (Langfuse toolCalls)
	order                   int
	line                    int
	// Where the span is, for errors: the top-level value it came from
	// (raw, at base in the file), its path there (with otlp, the indices
	// of resourceSpans[i].scopeSpans[j].spans[k] under path), where its
	// attributes are (attrsAt: "attributes", Langfuse's
	// "metadata.attributes", "" when the span is an attribute map) and the
	// field its trace id came from.
	base       int64
	raw        rawValue
	path       string
	otlp       *[3]int
	scopeKey   string // "scopeSpans" or "instrumentationLibrarySpans"
	attrsAt    string
	traceField string
}

// fullPath is where the span is within raw.
func (s *span) fullPath() string {
	if s.otlp == nil {
		return s.path
	}
	return fmt.Sprintf("%sresourceSpans[%d].%s[%d].spans[%d]", prefixDot(s.path), s.otlp[0], s.scopeKey, s.otlp[1], s.otlp[2])
}

// spanErr is an input error at field of span s.
func (in *Input) spanErr(s *span, field, format string, args ...any) error {
	return in.errAt(s.base, s.raw, joinPath(s.fullPath(), field), format, args...)
}

// attrErr is an input error at the attribute key of span s: an OTLP
// attribute list's attributes[N].value, else attributes[key].
func (in *Input) attrErr(s *span, key, format string, args ...any) error {
	p := s.fullPath()
	field := "[" + key + "]"
	if s.attrsAt != "" {
		field = s.attrsAt + field
		if off, ok := locate(s.raw, joinPath(p, s.attrsAt)); ok {
			var list []struct {
				Key string `json:"key"`
			}
			if json.NewDecoder(bytes.NewReader(s.raw[off:])).Decode(&list) == nil {
				for i, kv := range list {
					if kv.Key == key {
						field = fmt.Sprintf("%s[%d].value", s.attrsAt, i)
						break
					}
				}
			}
		}
	}
	if p == "" {
		return in.errAt(s.base, s.raw, field, format, args...)
	}
	if field[0] == '[' {
		return in.errAt(s.base, s.raw, p+field, format, args...)
	}
	return in.errAt(s.base, s.raw, p+"."+field, format, args...)
}

// flatten adds v under key to out, and every member of objects and arrays
// under dotted keys (nested OpenInference attributes become the flat
// llm.input_messages.0.message.role form). JSON strings are left whole:
// readers that want the JSON inside (gen_ai.input.messages) unwrap them.
func flatten(out map[string]rawValue, key string, v rawValue) { flattenDepth(out, key, v, 0) }

// maxFlatten caps the nesting flatten follows: attribute trees are shallow
// (llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments
// is 8 deep), and each level re-reads its subtree, so a hostile nest of
// thousands of levels must not cost thousands of passes.
const maxFlatten = 12

func flattenDepth(out map[string]rawValue, key string, v rawValue, depth int) {
	if key != "" {
		out[key] = v
	}
	v = bytes.TrimSpace(v)
	if len(v) == 0 || depth >= maxFlatten {
		return
	}
	switch v[0] {
	case '{':
		var m map[string]rawValue
		if json.Unmarshal(v, &m) == nil {
			for k, sub := range m {
				flattenDepth(out, joinPath(key, k), sub, depth+1)
			}
		}
	case '[':
		var a []rawValue
		if json.Unmarshal(v, &a) == nil {
			for i, sub := range a {
				flattenDepth(out, joinPath(key, strconv.Itoa(i)), sub, depth+1)
			}
		}
	}
}

func (s *span) attr(keys ...string) string {
	for _, k := range keys {
		if v := textOf(s.attrs[k]); v != "" {
			return v
		}
	}
	return ""
}

// indexed gives the messages written as PREFIX.N.* attributes (deprecated
// gen_ai.prompt.N.*, OpenInference llm.input_messages.N.message.*), in N
// order, as message objects; a message without a role has role (the
// deprecated gen_ai.completion.N.* are the model's output).
func (s *span) indexed(prefix, inner, role string) []rawValue {
	byN := map[int]map[string]rawValue{}
	for k, v := range s.attrs {
		rest, ok := strings.CutPrefix(k, prefix+".")
		if !ok {
			continue
		}
		nText, field, ok := strings.Cut(rest, ".")
		n, err := strconv.Atoi(nText)
		if !ok || err != nil {
			continue
		}
		if inner != "" {
			if field, ok = strings.CutPrefix(field, inner+"."); !ok {
				continue
			}
		}
		if byN[n] == nil {
			byN[n] = map[string]rawValue{}
		}
		byN[n][field] = v
	}
	ns := slices.Sorted(maps.Keys(byN))
	var out []rawValue
	for _, n := range ns {
		f := byN[n]
		m := map[string]any{"role": firstNonEmpty(str(f["role"]), role), "content": textOf(f["content"]), "tool_call_id": str(f["tool_call_id"]), "name": str(f["name"])}
		if m["content"] == "" {
			var texts []string
			for i := 0; ; i++ {
				t, ok := f[fmt.Sprintf("contents.%d.message_content.text", i)]
				if !ok {
					break
				}
				texts = append(texts, str(t))
			}
			m["content"] = strings.Join(texts, "\n")
		}
		var calls []map[string]any
		for i := 0; ; i++ {
			p := fmt.Sprintf("tool_calls.%d.", i)
			id, name := f[p+"id"], f[p+"name"]
			if name == nil {
				id, name = f[p+"tool_call.id"], f[p+"tool_call.function.name"]
			}
			if name == nil {
				break
			}
			args := f[p+"arguments"]
			if args == nil {
				args = f[p+"tool_call.function.arguments"]
			}
			calls = append(calls, map[string]any{"id": str(id), "function": map[string]any{"name": str(name), "arguments": argsText(args)}})
		}
		if fn := f["function_call.name"]; fn != nil { // the legacy single call
			calls = append(calls, map[string]any{"function": map[string]any{"name": str(fn), "arguments": argsText(f["function_call.arguments"])}})
		}
		if calls != nil {
			m["tool_calls"] = calls
		}
		b, _ := json.Marshal(m)
		out = append(out, b)
	}
	return out
}

// messages gives a span's input and output messages in whichever
// convention it uses, the first one it holds of each: the GenAI
// conventions (gen_ai.input.messages / gen_ai.output.messages, the
// deprecated gen_ai.prompt / gen_ai.completion as JSON, text or indexed
// attributes), OpenInference (llm.input_messages.N.*, else input.value /
// output.value), the AI SDK's (ai.prompt.messages, ai.prompt,
// ai.response.text and ai.response.toolCalls), and Langfuse's input and
// output.
func (s *span) messages() (in, out []rawValue) {
	if sys, ok := array(s.attrs["gen_ai.system_instructions"]); ok && len(sys) > 0 {
		b, _ := json.Marshal(map[string]any{"role": "system", "parts": sys})
		in = append(in, b)
	}
	text := s.textual()
	for _, get := range []func() []rawValue{
		func() []rawValue { a, _ := array(s.attrs["gen_ai.input.messages"]); return a },
		func() []rawValue { return s.whole("gen_ai.prompt", "user", requestMessages) },
		func() []rawValue { return s.indexed("gen_ai.prompt", "", "user") },
		func() []rawValue { return requestMessages(s.attrs["gen_ai.request.messages"]) },
		func() []rawValue { return s.indexed("llm.input_messages", "message", "") },
		func() []rawValue { return requestMessages(s.attrs["ai.prompt.messages"]) },
		func() []rawValue { return requestMessages(s.attrs["ai.prompt"]) },
		func() []rawValue { return s.value(s.attrs["input.value"], "user", text, requestMessages) },
		func() []rawValue { return s.value(s.input, "user", text && s.kind != "", requestMessages) },
	} {
		if ms := get(); len(ms) > 0 {
			in = append(in, ms...)
			break
		}
	}
	for _, get := range []func() []rawValue{
		func() []rawValue { a, _ := array(s.attrs["gen_ai.output.messages"]); return a },
		func() []rawValue { return s.whole("gen_ai.completion", "assistant", responseMessages) },
		func() []rawValue { return s.indexed("gen_ai.completion", "", "assistant") },
		func() []rawValue { return s.response("gen_ai.response.text", "", "gen_ai.response.tool_calls") },
		func() []rawValue { return s.indexed("llm.output_messages", "message", "") },
		func() []rawValue {
			return s.response("ai.response.text", "ai.response.reasoning", "ai.response.toolCalls")
		},
		func() []rawValue { return s.response("ai.result.text", "", "ai.result.toolCalls") },
		func() []rawValue { return s.value(s.attrs["output.value"], "assistant", text, responseMessages) },
		func() []rawValue { return s.value(s.output, "assistant", s.kind == "GENERATION", responseMessages) },
		func() []rawValue {
			if o, ok := object(s.output); ok && !isNull(o["text"]) {
				return []rawValue{textMsg("assistant", textOf(o["text"]))}
			}
			return nil
		},
	} {
		if ms := get(); len(ms) > 0 {
			out = ms
			break
		}
	}
	if len(s.calls) > 0 && !anyCalls(out) {
		out = append(out, assistantMsg("", s.calls))
	}
	return in, out
}

// textual reports whether the span is an LLM call or an agent or chain
// step, whose input and output text (input.value, output.value, Langfuse
// input and output) are what went in and came out; a retriever's or
// embedder's are not messages.
func (s *span) textual() bool {
	switch strings.ToUpper(s.attr("openinference.span.kind")) {
	case "LLM", "AGENT", "CHAIN":
		return true
	case "":
	default:
		return false
	}
	switch s.attr("gen_ai.operation.name") {
	case "chat", "text_completion", "generate_content", "invoke_agent":
		return true
	}
	switch s.kind {
	case "GENERATION", "AGENT", "CHAIN":
		return true
	}
	return false
}

// whole reads an attribute that holds all the messages (the deprecated
// gen_ai.prompt and gen_ai.completion): as JSON by read, or, when it is
// text that is not JSON, one message of role.
func (s *span) whole(key, role string, read func(rawValue) []rawValue) []rawValue {
	v, ok := s.attrs[key]
	if !ok {
		return nil
	}
	if ms := read(v); len(ms) > 0 {
		return ms
	}
	if u := unwrap(v); isString(u) && strings.TrimSpace(str(u)) != "" {
		return []rawValue{textMsg(role, str(u))}
	}
	return nil
}

// value reads an input or output value: as JSON by read, or, when text is
// true, its text as one message of role.
func (s *span) value(v rawValue, role string, text bool, read func(rawValue) []rawValue) []rawValue {
	if isNull(v) {
		return nil
	}
	if ms := read(v); len(ms) > 0 {
		return ms
	}
	// Text that is not JSON is what went in or came out; JSON that holds
	// no messages (a chain's {"question": …}, a garbled input) is not.
	if u := unwrap(v); text && isString(u) && strings.TrimSpace(str(u)) != "" {
		return []rawValue{textMsg(role, str(u))}
	}
	return nil
}

// response builds the assistant message of an LLM call from separate text,
// reasoning and tool-call attributes (the AI SDK's ai.response.*).
func (s *span) response(textKey, reasoningKey, callsKey string) []rawValue {
	text := str(s.attrs[textKey])
	if r := str(s.attrs[reasoningKey]); reasoningKey != "" && r != "" {
		text = joinLines("(reasoning) "+r, text)
	}
	calls, _ := array(s.attrs[callsKey])
	tcs := callList(calls)
	if text == "" && len(tcs) == 0 {
		return nil
	}
	return []rawValue{assistantMsg(text, tcs)}
}

func anyCalls(ms []rawValue) bool {
	for _, raw := range ms {
		if m, ok := decodeMsg(raw); ok && len(m.calls) > 0 {
			return true
		}
	}
	return false
}

// messageList reads v as messages: an array of them, an object holding them
// under "messages", or one message object.
func messageList(v rawValue) []rawValue {
	if a, ok := array(v); ok {
		if len(a) > 0 {
			if _, ok := decodeMsg(a[0]); ok {
				return a
			}
		}
		return nil
	}
	o, ok := object(v)
	if !ok {
		return nil
	}
	if a, ok := array(o["messages"]); ok {
		return a
	}
	if _, ok := decodeMsg(v); ok {
		return []rawValue{v}
	}
	return nil
}

func (s *span) isTool() bool {
	op := s.attr("gen_ai.operation.name")
	return s.kind == "TOOL" || op == "execute_tool" || strings.HasPrefix(s.name, "execute_tool") ||
		strings.EqualFold(s.attr("openinference.span.kind"), "TOOL") || s.aiOp() == "ai.toolCall" ||
		(s.attrs["gen_ai.tool.name"] != nil || s.attrs["tool.name"] != nil || s.attrs["ai.toolCall.name"] != nil) && s.attrs["gen_ai.input.messages"] == nil && s.attrs["llm.input_messages"] == nil
}

// aiOp gives the AI SDK's operation id (ai.generateText,
// ai.generateText.doGenerate, ai.toolCall, …), or "".
func (s *span) aiOp() string {
	if op := s.attr("ai.operationId"); op != "" {
		return op
	}
	if op, _, _ := strings.Cut(s.attr("operation.name"), " "); strings.HasPrefix(op, "ai.") {
		return op
	}
	return ""
}

// toolCall gives a tool span's call: id, name and arguments.
func (s *span) toolCall() review.ToolCall {
	name := firstNonEmpty(s.attr("gen_ai.tool.name", "tool.name", "ai.toolCall.name"), strings.TrimPrefix(strings.TrimPrefix(s.name, "execute_tool "), "running tool: "))
	args := firstPresent(s.attrs, "gen_ai.tool.call.arguments", "input.value", "ai.toolCall.args", "ai.toolCall.input")
	if args == nil {
		args = s.input
		// The Claude Agent SDK's tool observations wrap the arguments: {"input": {…}}.
		if o, ok := object(args); ok && len(o) == 1 && o["input"] != nil {
			args = o["input"]
		}
	}
	return review.ToolCall{ID: s.attr("gen_ai.tool.call.id", "tool_call.id", "tool.call.id", "ai.toolCall.id"), Name: name, Arguments: argsText(args)}
}

// toolResult gives a tool span's result as text.
func (s *span) toolResult() string {
	res := firstPresent(s.attrs, "gen_ai.tool.call.result", "output.value", "ai.toolCall.result", "ai.toolCall.output")
	if res == nil {
		res = s.output
	}
	return resultText(res)
}

// spanRuns turns spans into runs. A run's id is its conversation id, else
// its trace id, else base; an id taken from a field that memreview could
// not store is an error naming the span's line and field.
func spanRuns(in *Input, spans []*span, base string, rep *Report) ([]review.Trajectory, error) {
	type group struct {
		spans []*span
		from  *span  // the first span, which gave the key
		attr  string // the attribute the key came from ("" for the trace id)
	}
	groups := map[string]*group{}
	var keys []string
	for _, s := range spans {
		attr := "gen_ai.conversation.id"
		k := s.attr(attr)
		if k == "" {
			attr = "session.id"
			k = s.attr(attr)
		}
		if k == "" {
			k, attr = s.trace, ""
		}
		g := groups[k]
		if g == nil {
			g = &group{from: s, attr: attr}
			groups[k] = g
			keys = append(keys, k)
		}
		g.spans = append(g.spans, s)
	}
	var out []review.Trajectory
	for _, k := range keys {
		g := groups[k]
		if k != "" {
			if err := review.CheckID(k); err != nil {
				if g.attr != "" {
					return nil, in.attrErr(g.from, g.attr, "%v", err)
				}
				return nil, in.spanErr(g.from, g.from.traceField, "%v", err)
			}
		}
		out = append(out, spanRun(g.spans, k, base, rep))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	if n := len(rep.Retrievals); n > 0 {
		rep.Note("%d search_memory spans: the records they returned are their runs' retrieved records, and each is a retrieval-log entry", n)
	}
	return out, nil
}

// wrappers finds the spans that wrap other LLM calls (an agent or chain
// span around its generations, the AI SDK's ai.generateText around its
// ai.generateText.doGenerate steps, which exports may list without span
// ids): their messages repeat the calls they wrap.
func wrappers(spans []*span, byID map[string]*span, holds map[*span]bool) map[*span]bool {
	wraps := map[*span]bool{}
	inner := map[string]bool{}
	for _, s := range spans {
		if !holds[s] {
			continue
		}
		for p, d := byID[s.parent], 0; p != nil && d < 64; p, d = byID[p.parent], d+1 {
			wraps[p] = true
		}
		if op := s.aiOp(); strings.HasSuffix(op, ".doGenerate") || strings.HasSuffix(op, ".doStream") {
			inner[op[:strings.LastIndexByte(op, '.')]] = true
		}
	}
	for _, s := range spans {
		if op := s.aiOp(); op != "" && inner[op] {
			wraps[s] = true
		}
	}
	return wraps
}

func spanRun(spans []*span, key, base string, rep *Report) review.Trajectory {
	byID := map[string]*span{}
	for _, s := range spans {
		if s.id != "" {
			byID[s.id] = s
		}
	}
	depth := func(s *span) int {
		d := 0
		for p := byID[s.parent]; p != nil && d < 64; p = byID[p.parent] {
			d++
		}
		return d
	}
	missing := 0
	for _, s := range spans {
		if s.parent != "" && byID[s.parent] == nil {
			missing++
		}
	}
	if missing > 0 {
		rep.Note("%d spans name a parent that is not in the file (ordered by start time alone)", missing)
	}
	// A span starts no earlier than its parent (clocks of two processes
	// disagree by a little: the Claude Agent SDK's first turn can start a
	// millisecond before the conversation around it).
	start := make(map[*span]time.Time, len(spans))
	for _, s := range spans {
		t := s.start
		for p, d := byID[s.parent], 0; p != nil && d < 64; p, d = byID[p.parent], d+1 {
			if p.start.After(t) {
				t = p.start
			}
		}
		start[s] = t
	}
	sort.SliceStable(spans, func(i, j int) bool {
		a, b := spans[i], spans[j]
		if sa, sb := start[a], start[b]; !sa.Equal(sb) {
			return sa.Before(sb)
		}
		if da, db := depth(a), depth(b); da != db {
			return da < db
		}
		return a.order < b.order
	})
	type io struct{ in, out []rawValue }
	msgs := make(map[*span]io, len(spans))
	holds := map[*span]bool{}
	for _, s := range spans {
		if s.isTool() {
			continue
		}
		in, out := s.messages()
		msgs[s] = io{in, out}
		holds[s] = len(in)+len(out) > 0
	}
	wraps := wrappers(spans, byID, holds)
	r := newRun(rep)
	r.t.ID = key
	if key == "" {
		r.t.ID = base
	}
	seen := map[string]bool{}
	results := map[string]bool{}
	var errs []string
	for _, s := range spans {
		if !s.start.IsZero() && (r.t.Started.IsZero() || s.start.Before(r.t.Started)) {
			r.t.Started = s.start
		}
		if s.end.After(r.t.Ended) {
			r.t.Ended = s.end
		}
		if s.errMsg != "" {
			errs = append(errs, s.name+": "+s.errMsg)
		}
		if m := firstNonEmpty(s.model, s.attr("gen_ai.response.model", "gen_ai.request.model", "llm.model_name", "ai.response.model", "ai.model.id")); m != "" && r.t.Model == "" {
			r.t.Model = m
		}
		if s.isMemorySearch() {
			r.memorySearch(s)
			continue
		}
		if s.isTool() {
			call := s.toolCall()
			if call.ID != "" && results[call.ID] {
				continue
			}
			if call.ID != "" && !r.hasCall(call.ID) {
				// A tool run with no LLM span that asked for it: the call
				// and its result are both in this span.
				r.add(review.Step{Role: "assistant", ToolCalls: []review.ToolCall{call}})
			}
			if linked := r.toolResult(call, s.toolResult()); linked != "" {
				results[linked] = true
			}
			continue
		}
		m := msgs[s]
		if wraps[s] && holds[s] {
			// A wrapper's output repeats its last call's; the run's first
			// span gives its input (the task, a system prompt) once.
			m.out = nil
			if s.parent != "" && byID[s.parent] != nil || len(m.in) == 0 {
				rep.Skip("spans that wrap other LLM calls (their messages repeat them)", 1)
				continue
			}
		}
		if len(m.in) == 0 && len(m.out) == 0 {
			if t := s.attr("input.value"); t != "" && r.t.Task == "" && strings.EqualFold(s.attr("openinference.span.kind"), "AGENT") {
				r.t.Task = t
			}
			rep.Skip("spans with no messages or tool call (structure only)", 1)
			continue
		}
		for _, raw := range append(m.in, m.out...) {
			m, ok := decodeMsg(raw)
			if !ok {
				rep.Skip("messages with no role", 1)
				continue
			}
			if len(m.results) > 0 || m.role == "tool" {
				fresh := m.results[:0:0]
				for _, res := range m.results {
					if res.id == "" || !results[res.id] {
						fresh = append(fresh, res)
						results[res.id] = res.id != ""
					}
				}
				if m.role == "tool" && len(m.results) == 0 {
					if m.callID != "" && results[m.callID] {
						continue
					}
					results[m.callID] = m.callID != ""
				} else if m.results = fresh; len(fresh) == 0 && m.text == "" {
					continue
				}
			}
			key := msgKey(m)
			if seen[key] && len(m.results) == 0 {
				continue
			}
			seen[key] = true
			r.addMsg(m)
		}
	}
	if len(errs) > 0 {
		r.t.Outcome.Notes = "spans ended in error: " + strings.Join(errs, "; ")
	}
	r.t.Outcome.Kind = review.OutcomeUnknown // spans carry no outcome
	return r.finish()
}

func msgKey(m msg) string {
	var b strings.Builder
	b.WriteString(m.role + "\x00" + m.text + "\x00" + m.callID)
	for _, c := range m.calls {
		b.WriteString("\x00" + c.ID + "\x00" + c.Name + "\x00" + c.Arguments)
	}
	return b.String()
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// eventAttrs takes the messages the GenAI conventions once put in span
// events (gen_ai.content.prompt holding gen_ai.prompt,
// gen_ai.content.completion holding gen_ai.completion).
func (s *span) eventAttrs(ea map[string]rawValue) {
	for _, k := range []string{"gen_ai.prompt", "gen_ai.completion"} {
		if v, ok := ea[k]; ok && s.attrs[k] == nil {
			flatten(s.attrs, k, v)
		}
	}
}
