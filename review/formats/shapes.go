package formats

// The shapes producers give an LLM call's input and output and a tool's
// result, beside chat messages: raw tool-call lists (the AI SDK's
// ai.response.toolCalls, OpenAI's tool_calls), request objects ({messages},
// {system, prompt}), responses ({choices[{message}]}), and tool results
// wrapped as MCP content ({content[{type: text}]}) or AI SDK outputs
// ({type: text, value}).

import (
	"encoding/json"
	"strings"

	"github.com/memreview/memreview/review"
)

// callList reads a list of tool calls in any producer's spelling: OpenAI
// {id, function{name, arguments}}, Inspect {id, function: NAME, arguments},
// the AI SDK {toolCallId, toolName, input | args}, Anthropic {id, name,
// input}. Elements that name no tool are left out.
func callList(list []rawValue) []review.ToolCall {
	var out []review.ToolCall
	for _, c := range list {
		co, ok := object(c)
		if !ok {
			continue
		}
		tc := review.ToolCall{ID: firstNonEmpty(str(co["id"]), str(co["toolCallId"]), str(co["tool_call_id"]))}
		if fn, ok := object(co["function"]); ok {
			tc.Name, tc.Arguments = str(fn["name"]), argsText(fn["arguments"])
		} else {
			tc.Name = firstNonEmpty(str(co["function"]), str(co["name"]), str(co["toolName"]))
			tc.Arguments = argsText(firstPresent(co, "arguments", "input", "args"))
		}
		if tc.Name == "" {
			continue
		}
		out = append(out, tc)
	}
	return out
}

// callsMessage gives an assistant message holding the calls v lists, or
// nil when v is not a non-empty list of tool calls.
func callsMessage(v rawValue) rawValue {
	a, ok := array(v)
	if !ok || len(a) == 0 {
		return nil
	}
	if o, ok := object(a[0]); !ok || o["role"] != nil {
		return nil // messages, not calls
	}
	calls := callList(a)
	if len(calls) != len(a) {
		return nil
	}
	return assistantMsg("", calls)
}

func assistantMsg(text string, calls []review.ToolCall) rawValue {
	m := map[string]any{"role": "assistant", "content": text}
	if len(calls) > 0 {
		var tcs []map[string]any
		for _, c := range calls {
			tcs = append(tcs, map[string]any{"id": c.ID, "function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
		}
		m["tool_calls"] = tcs
	}
	b, _ := json.Marshal(m)
	return b
}

func textMsg(role, text string) rawValue {
	b, _ := json.Marshal(map[string]string{"role": role, "content": text})
	return b
}

// resultText gives a tool's result as text: MCP content ({content[{type:
// text, text}]}, with isError), an AI SDK output ({type: text | json |
// error-text, value}), a JSON string holding a string (the AI SDK writes
// ai.toolCall.result so), or the value as text.
func resultText(v rawValue) string {
	v = unwrap(v)
	if o, ok := object(v); ok {
		if parts, ok := array(o["content"]); ok && len(parts) > 0 && !isString(o["content"]) && typed(parts[0]) {
			t := contentText(o["content"])
			if str(o["isError"]) == "true" {
				t = joinNotes("(error)", t)
			}
			return t
		}
		if typ := str(o["type"]); typ != "" && o["value"] != nil && len(o) <= 3 {
			t := textOf(o["value"])
			if strings.Contains(typ, "error") {
				t = joinNotes("(error)", t)
			}
			return t
		}
	}
	if isString(v) {
		s := str(v)
		var inner string
		if t := strings.TrimSpace(s); strings.HasPrefix(t, `"`) && json.Unmarshal([]byte(t), &inner) == nil {
			return inner
		}
		return s
	}
	return textOf(v)
}

// typed reports whether v is an object with a "type" (a content part).
func typed(v rawValue) bool {
	o, ok := object(v)
	return ok && str(o["type"]) != ""
}

// requestMessages reads an LLM call's input: messages (messageList), a
// request object holding them ({messages, system}: OpenAI, Anthropic, the
// AI SDK's ai.prompt), or a bare {prompt} (the AI SDK, Claude Agent SDK).
func requestMessages(v rawValue) []rawValue {
	if ms := messageList(v); ms != nil {
		if o, ok := object(v); ok && o["role"] == nil {
			return withSystem(o, ms)
		}
		return ms
	}
	o, ok := object(v)
	if !ok {
		return nil
	}
	p := o["prompt"]
	if ms := messageList(p); ms != nil {
		return withSystem(o, ms)
	}
	if isString(p) && str(p) != "" {
		return withSystem(o, []rawValue{textMsg("user", str(p))})
	}
	return nil
}

// withSystem puts a request's separate system prompt ({system: "…"}, or
// Anthropic's system blocks) before its messages.
func withSystem(o map[string]rawValue, ms []rawValue) []rawValue {
	sys := contentText(o["system"])
	if strings.TrimSpace(sys) == "" {
		return ms
	}
	return append([]rawValue{textMsg("system", sys)}, ms...)
}

// responseMessages reads an LLM call's output: messages, a chat
// completion ({choices[{message}]}), or a raw list of tool calls.
func responseMessages(v rawValue) []rawValue {
	if m := callsMessage(v); m != nil {
		return []rawValue{m}
	}
	if ms := messageList(v); ms != nil {
		return ms
	}
	o, ok := object(v)
	if !ok {
		return nil
	}
	choices, _ := array(o["choices"])
	var out []rawValue
	for _, c := range choices {
		co, _ := object(c)
		if m := co["message"]; m != nil {
			if _, ok := decodeMsg(m); ok {
				out = append(out, m)
			}
		}
	}
	return out
}
