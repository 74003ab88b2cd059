package formats

// run builds one trajectory step by step: tool calls are registered as
// they appear and each result is linked to its call, by id when the format
// has ids, else to the newest open call of that name (or any name).

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/memreview/memreview/review"
)

type callRef struct{ step, call int }

type run struct {
	t      review.Trajectory
	open   []callRef // calls still waiting for a result, oldest first
	linked int
	rep    *Report
}

func newRun(rep *Report) *run { return &run{rep: rep} }

// add appends a step (its tool calls become open) and returns its index.
func (r *run) add(s review.Step) int {
	r.t.Steps = append(r.t.Steps, s)
	i := len(r.t.Steps) - 1
	for j, c := range s.ToolCalls {
		if c.Result == "" {
			r.open = append(r.open, callRef{i, j})
		} else {
			r.linked++ // the call carries its own result
		}
	}
	return i
}

// link gives the call with id (or, when id is "", the newest open call
// named name, or the newest open call when name is "") the result; it
// reports whether one was found.
func (r *run) link(id, name, result string) bool {
	for k := len(r.open) - 1; k >= 0; k-- {
		tc := &r.t.Steps[r.open[k].step].ToolCalls[r.open[k].call]
		if id != "" && tc.ID != id || id == "" && name != "" && tc.Name != name {
			continue
		}
		tc.Result = result
		r.open = append(r.open[:k], r.open[k+1:]...)
		r.linked++
		return true
	}
	return false
}

// hasCall reports whether a call with id was made in this run.
func (r *run) hasCall(id string) bool {
	if id == "" {
		return false
	}
	for _, s := range r.t.Steps {
		for _, c := range s.ToolCalls {
			if c.ID == id {
				return true
			}
		}
	}
	return false
}

// result adds a tool step answering call id (or name) and links it.
func (r *run) result(id, name, content string) {
	r.add(review.Step{Role: "tool", Content: content, ToolCallID: id, Name: name})
	if !r.link(id, name, content) {
		r.rep.Skip("tool results with no matching call (kept as steps, not linked)", 1)
	}
}

// toolResult adds a tool step with the result of call, as a tool span
// reports it, and links it: by id when the span names one, else to the
// oldest open call of that name whose arguments are the span's (tools run
// in the order they were asked for), else to the oldest of that name. It
// returns the id of the call it linked ("" when none, or when that call
// has no id).
func (r *run) toolResult(call review.ToolCall, text string) string {
	r.add(review.Step{Role: "tool", Content: text, ToolCallID: call.ID, Name: call.Name})
	if call.ID != "" {
		if r.link(call.ID, "", text) {
			return call.ID
		}
		r.rep.Skip("tool results with no matching call (kept as steps, not linked)", 1)
		return ""
	}
	pick := -1
	for k, ref := range r.open {
		tc := &r.t.Steps[ref.step].ToolCalls[ref.call]
		if call.Name != "" && tc.Name != call.Name {
			continue
		}
		if sameArgs(tc.Arguments, call.Arguments) {
			pick = k
			break
		}
		if pick < 0 {
			pick = k
		}
	}
	if pick < 0 {
		r.rep.Skip("tool results with no matching call (kept as steps, not linked)", 1)
		return ""
	}
	ref := r.open[pick]
	tc := &r.t.Steps[ref.step].ToolCalls[ref.call]
	tc.Result = text
	r.open = append(r.open[:pick], r.open[pick+1:]...)
	r.linked++
	return tc.ID
}

// sameArgs reports whether two tool-call arguments are the same JSON (or
// the same text).
func sameArgs(a, b string) bool {
	if a == b {
		return true
	}
	var ca, cb bytes.Buffer
	return json.Compact(&ca, []byte(a)) == nil && json.Compact(&cb, []byte(b)) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}

// finish fills the task from the first user step when none was set,
// counts what is left open and returns the trajectory.
func (r *run) finish() review.Trajectory {
	if strings.TrimSpace(r.t.Task) == "" {
		for _, s := range r.t.Steps {
			if s.Role == "user" && strings.TrimSpace(s.Content) != "" {
				r.t.Task = s.Content
				break
			}
		}
	}
	r.rep.Linked += r.linked
	r.rep.Skip("tool calls with no result in the file", len(r.open))
	return r.t
}

// msg is a chat message in any of the shapes the formats use: OpenAI
// ({role, content, tool_calls[{id, function{name, arguments}}], tool_call_id}),
// OTel GenAI parts ({role, parts[{type: text|tool_call|tool_call_response|reasoning}]}),
// Inspect AI ({content as parts, tool_calls[{id, function: name, arguments}]}),
// the AI SDK's content parts (tool-call, tool-result) and Anthropic's
// (tool_use, tool_result).
type msg struct {
	role    string
	text    string
	calls   []review.ToolCall
	results []result // tool results carried as parts
	callID  string   // tool_call_id of a tool message
	name    string
}

type result struct{ id, name, text string }

// decodeMsg reads one message; ok is false when m is not an object with a
// role.
func decodeMsg(raw rawValue) (msg, bool) {
	m, ok := object(raw)
	if !ok {
		return msg{}, false
	}
	out := msg{role: str(m["role"]), callID: str(m["tool_call_id"]), name: str(m["name"])}
	if out.name == "" {
		out.name = str(m["function"])
	}
	if out.role == "" {
		return out, false
	}
	var texts []string
	if parts, ok := array(m["content"]); ok && !isString(m["content"]) {
		out.addParts(parts, &texts)
	} else if t := contentText(m["content"]); t != "" {
		texts = append(texts, t)
	}
	parts, _ := array(m["parts"])
	out.addParts(parts, &texts)
	calls, _ := array(m["tool_calls"])
	out.calls = append(out.calls, callList(calls)...)
	out.text = strings.Join(texts, "\n")
	return out, true
}

// addParts adds a message's content parts: text and reasoning to texts,
// tool calls and tool results to m. Images, files and other parts are left
// out.
func (m *msg) addParts(parts []rawValue, texts *[]string) {
	for _, p := range parts {
		if s := str(p); s != "" {
			*texts = append(*texts, s)
			continue
		}
		po, ok := object(p)
		if !ok {
			continue
		}
		switch str(po["type"]) {
		case "tool_call": // OTel GenAI
			m.calls = append(m.calls, review.ToolCall{ID: str(po["id"]), Name: str(po["name"]), Arguments: argsText(po["arguments"])})
		case "tool-call": // AI SDK
			m.calls = append(m.calls, review.ToolCall{ID: str(po["toolCallId"]), Name: str(po["toolName"]), Arguments: argsText(firstPresent(po, "input", "args"))})
		case "tool_use": // Anthropic; Inspect's server-side tool uses carry their result
			tc := review.ToolCall{ID: str(po["id"]), Name: str(po["name"]), Arguments: argsText(firstPresent(po, "input", "arguments"))}
			tc.Result = resultText(po["result"])
			m.calls = append(m.calls, tc)
		case "tool_call_response": // OTel GenAI
			m.results = append(m.results, result{id: str(po["id"]), text: resultText(firstPresent(po, "response", "result"))})
		case "tool-result": // AI SDK
			m.results = append(m.results, result{id: str(po["toolCallId"]), name: str(po["toolName"]), text: resultText(firstPresent(po, "output", "result"))})
		case "tool_result": // Anthropic
			t := resultText(po["content"])
			if str(po["is_error"]) == "true" {
				t = joinNotes("(error)", t)
			}
			m.results = append(m.results, result{id: str(po["tool_use_id"]), text: t})
		case "reasoning", "thinking":
			if t := firstText(po, "content", "reasoning", "thinking", "text"); t != "" {
				*texts = append(*texts, "(reasoning) "+t)
			}
		default:
			if t := firstText(po, "text", "content"); t != "" {
				*texts = append(*texts, t)
			}
		}
	}
}

// firstPresent gives the first of keys that m holds (not null).
func firstPresent(m map[string]rawValue, keys ...string) rawValue {
	for _, k := range keys {
		if !isNull(m[k]) {
			return m[k]
		}
	}
	return nil
}

func firstText(m map[string]rawValue, keys ...string) string {
	for _, k := range keys {
		if t := textOf(m[k]); t != "" {
			return t
		}
	}
	return ""
}

// contentText flattens message content: a string, or parts ({type: text,
// text}, {type: reasoning, reasoning}); tool parts, images and other parts
// are left out.
func contentText(v rawValue) string {
	if isNull(v) {
		return ""
	}
	if isString(v) {
		return str(v)
	}
	parts, ok := array(v)
	if !ok {
		return textOf(v)
	}
	var m msg
	var texts []string
	m.addParts(parts, &texts)
	return strings.Join(texts, "\n")
}

// isString reports whether v is a JSON string.
func isString(v rawValue) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '"'
}

// addMsg appends a message as a step (and, for its tool results, links
// them).
func (r *run) addMsg(m msg) {
	if m.role == "tool" || m.role == "function" || m.role == "ipython" {
		if len(m.results) == 0 {
			r.result(m.callID, m.name, m.text)
			return
		}
	}
	if len(m.results) > 0 {
		for _, res := range m.results {
			r.result(res.id, "", res.text)
		}
		if m.text == "" && len(m.calls) == 0 {
			return
		}
	}
	r.add(review.Step{Role: m.role, Content: m.text, ToolCalls: m.calls, Name: m.name})
}
