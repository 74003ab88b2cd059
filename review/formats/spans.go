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
	errMsg                  string // set when the span ended in error
	order                   int
	line                    int
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
// order, as message objects.
func (s *span) indexed(prefix, inner string) []rawValue {
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
		m := map[string]any{"role": str(f["role"]), "content": textOf(f["content"]), "tool_call_id": str(f["tool_call_id"]), "name": str(f["name"])}
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
		if calls != nil {
			m["tool_calls"] = calls
		}
		b, _ := json.Marshal(m)
		out = append(out, b)
	}
	return out
}

// messages gives a span's input and output messages in whichever
// convention it uses.
func (s *span) messages() (in, out []rawValue) {
	if sys, ok := array(s.attrs["gen_ai.system_instructions"]); ok && len(sys) > 0 {
		b, _ := json.Marshal(map[string]any{"role": "system", "parts": sys})
		in = append(in, b)
	}
	if a, ok := array(s.attrs["gen_ai.input.messages"]); ok {
		in = append(in, a...)
	} else if a := s.indexed("gen_ai.prompt", ""); a != nil {
		in = append(in, a...)
	} else if a := s.indexed("llm.input_messages", "message"); a != nil {
		in = append(in, a...)
	}
	if a, ok := array(s.attrs["gen_ai.output.messages"]); ok {
		out = a
	} else if a := s.indexed("gen_ai.completion", ""); a != nil {
		out = a
	} else if a := s.indexed("llm.output_messages", "message"); a != nil {
		out = a
	}
	if in == nil {
		in = messageList(s.input)
	}
	if out == nil {
		out = messageList(s.output)
		if out == nil && s.kind == "GENERATION" {
			if t := textOf(s.output); t != "" {
				b, _ := json.Marshal(map[string]string{"role": "assistant", "content": t})
				out = []rawValue{b}
			}
		}
		if out == nil {
			if o, ok := object(s.output); ok && !isNull(o["text"]) {
				b, _ := json.Marshal(map[string]string{"role": "assistant", "content": textOf(o["text"])})
				out = []rawValue{b}
			}
		}
	}
	return in, out
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
		strings.EqualFold(s.attr("openinference.span.kind"), "TOOL") ||
		(s.attrs["gen_ai.tool.name"] != nil || s.attrs["tool.name"] != nil) && s.attrs["gen_ai.input.messages"] == nil && s.attrs["llm.input_messages"] == nil
}

// spanRuns turns spans into runs.
func spanRuns(spans []*span, base string, rep *Report) []review.Trajectory {
	groups := map[string][]*span{}
	var keys []string
	for _, s := range spans {
		k := s.attr("gen_ai.conversation.id", "session.id")
		if k == "" {
			k = s.trace
		}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], s)
	}
	var out []review.Trajectory
	for _, k := range keys {
		out = append(out, spanRun(groups[k], k, base, rep))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out
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
	sort.SliceStable(spans, func(i, j int) bool {
		a, b := spans[i], spans[j]
		if !a.start.Equal(b.start) {
			return a.start.Before(b.start)
		}
		if da, db := depth(a), depth(b); da != db {
			return da < db
		}
		return a.order < b.order
	})
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
		if m := firstNonEmpty(s.model, s.attr("gen_ai.response.model", "gen_ai.request.model", "llm.model_name")); m != "" && r.t.Model == "" {
			r.t.Model = m
		}
		if s.isTool() {
			id := s.attr("gen_ai.tool.call.id", "tool_call.id", "tool.call.id")
			name := firstNonEmpty(s.attr("gen_ai.tool.name", "tool.name"), strings.TrimPrefix(strings.TrimPrefix(s.name, "execute_tool "), "running tool: "))
			res := s.attrs["gen_ai.tool.call.result"]
			if res == nil {
				res = s.attrs["output.value"]
			}
			if res == nil {
				res = s.output
			}
			if id != "" && results[id] {
				continue
			}
			if id != "" && !r.hasCall(id) {
				// A tool run with no LLM span that asked for it: the call
				// and its result are both in this span.
				args := s.attrs["gen_ai.tool.call.arguments"]
				if args == nil {
					args = s.attrs["input.value"]
				}
				if args == nil {
					args = s.input
				}
				r.add(review.Step{Role: "assistant", ToolCalls: []review.ToolCall{{ID: id, Name: name, Arguments: argsText(args)}}})
			}
			results[id] = id != ""
			r.result(id, name, textOf(res))
			continue
		}
		in, out := s.messages()
		if in == nil && out == nil {
			if t := s.attr("input.value"); t != "" && r.t.Task == "" && strings.EqualFold(s.attr("openinference.span.kind"), "AGENT") {
				r.t.Task = t
			}
			rep.Skip("spans with no messages or tool call (structure only)", 1)
			continue
		}
		for _, raw := range append(in, out...) {
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
