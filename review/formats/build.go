package formats

// run builds one trajectory step by step: tool calls are registered as
// they appear and each result is linked to its call, by id when the format
// has ids, else to the newest open call of that name (or any name).

import (
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
	for j := range s.ToolCalls {
		r.open = append(r.open, callRef{i, j})
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
// Inspect AI ({content as parts, tool_calls[{id, function: name, arguments}]}).
type msg struct {
	role    string
	text    string
	calls   []review.ToolCall
	results []result // tool_call_response parts
	callID  string   // tool_call_id of a tool message
	name    string
}

type result struct{ id, text string }

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
	if t := contentText(m["content"]); t != "" {
		texts = append(texts, t)
	}
	parts, _ := array(m["parts"])
	for _, p := range parts {
		po, ok := object(p)
		if !ok {
			continue
		}
		switch str(po["type"]) {
		case "text":
			texts = append(texts, firstText(po, "content", "text"))
		case "reasoning", "thinking":
			if t := firstText(po, "content", "reasoning", "text"); t != "" {
				texts = append(texts, "(reasoning) "+t)
			}
		case "tool_call":
			out.calls = append(out.calls, review.ToolCall{ID: str(po["id"]), Name: str(po["name"]), Arguments: argsText(po["arguments"])})
		case "tool_call_response":
			v := po["response"]
			if isNull(v) {
				v = po["result"]
			}
			out.results = append(out.results, result{id: str(po["id"]), text: textOf(v)})
		}
	}
	calls, _ := array(m["tool_calls"])
	for _, c := range calls {
		co, ok := object(c)
		if !ok {
			continue
		}
		tc := review.ToolCall{ID: str(co["id"])}
		if fn, ok := object(co["function"]); ok {
			tc.Name, tc.Arguments = str(fn["name"]), argsText(fn["arguments"])
		} else {
			tc.Name, tc.Arguments = str(co["function"]), argsText(co["arguments"])
		}
		if tc.Name == "" {
			tc.Name = str(co["name"])
		}
		out.calls = append(out.calls, tc)
	}
	out.text = strings.Join(texts, "\n")
	return out, true
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
// text}, {type: reasoning, reasoning}); images and other parts are left out.
func contentText(v rawValue) string {
	if isNull(v) {
		return ""
	}
	if s := str(v); s != "" || (len(v) > 0 && v[0] == '"') {
		return s
	}
	parts, ok := array(v)
	if !ok {
		return textOf(v)
	}
	var texts []string
	for _, p := range parts {
		if s := str(p); s != "" {
			texts = append(texts, s)
			continue
		}
		po, ok := object(p)
		if !ok {
			continue
		}
		switch str(po["type"]) {
		case "reasoning", "thinking":
			if t := firstText(po, "reasoning", "thinking", "text"); t != "" {
				texts = append(texts, "(reasoning) "+t)
			}
		default:
			if t := firstText(po, "text", "content"); t != "" {
				texts = append(texts, t)
			}
		}
	}
	return strings.Join(texts, "\n")
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
