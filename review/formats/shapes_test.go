package formats

import (
	"fmt"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
)

// Issue 23 item 13: the shapes producers document, beyond the samples in
// ../shared/realdata. Each test builds its file from the shape as the
// producer documents or tests it (cited at each test); none copies a
// producer's file.

// steps renders a run as "role text [calls]" lines, each call as
// name(args)=>result.
func steps(t *review.Trajectory) string {
	var b strings.Builder
	for _, s := range t.Steps {
		fmt.Fprintf(&b, "%s %s", s.Role, s.Content)
		for _, c := range s.ToolCalls {
			fmt.Fprintf(&b, " [%s %s(%s)=>%s]", c.ID, c.Name, c.Arguments, c.Result)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func readOne(t *testing.T, file, data, format string) (*review.Trajectory, *Report) {
	t.Helper()
	ts, rep, err := ReadTrajectories(NewInput(file, []byte(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Format != format || len(ts) != 1 {
		t.Fatalf("read as %s, %d runs", rep.Format, len(ts))
	}
	return &ts[0], rep
}

func wantSteps(t *testing.T, tr *review.Trajectory, want string) {
	t.Helper()
	if got := steps(tr); got != want {
		t.Errorf("steps:\n%s\nwant:\n%s", got, want)
	}
}

// A Claude Agent SDK run exported from Langfuse (the shape of
// langfuse/langfuse worker/src/__tests__/chatml/framework-traces/
// claude-agent-*.trace.json): a conversation SPAN around GENERATION turns
// whose output holds Anthropic tool_use parts, TOOL observations with no
// call id whose input wraps the arguments ({"input": …}) and whose output
// is MCP content; the first turn starts a millisecond before the
// conversation. Two calls of one tool are open at once: each result goes
// to the call with its arguments.
func TestLangfuseClaudeAgentSDK(t *testing.T) {
	data := `{"trace": {"id": "claude-1", "input": "{\"prompt\": \"Weather in Berlin and Paris?\", \"system\": \"You are a travel assistant.\"}"},
 "observations": [
  {"id": "turn1", "type": "GENERATION", "name": "claude.assistant.turn", "parentObservationId": "conv", "startTime": "2025-12-22T10:00:00.000Z", "model": "claude-sonnet-4-5",
   "input": "{\"content\": \"Weather in Berlin and Paris?\", \"role\": \"user\"}",
   "output": "{\"content\": [{\"type\": \"text\", \"text\": \"I will check both.\"}], \"role\": \"assistant\"}"},
  {"id": "conv", "type": "SPAN", "name": "claude.conversation", "startTime": "2025-12-22T10:00:00.001Z",
   "input": "{\"prompt\": \"Weather in Berlin and Paris?\", \"system\": \"You are a travel assistant.\"}",
   "output": "{\"content\": [{\"type\": \"text\", \"text\": \"Berlin is cloudy, Paris sunny.\"}], \"role\": \"assistant\"}"},
  {"id": "turn2", "type": "GENERATION", "name": "claude.assistant.turn", "parentObservationId": "conv", "startTime": "2025-12-22T10:00:01Z",
   "input": "{\"content\": \"role\"}",
   "output": "{\"content\": [{\"type\": \"tool_use\", \"id\": \"toolu_B\", \"name\": \"mcp__weather__get\", \"input\": {\"city\": \"Berlin\"}}], \"role\": \"assistant\"}"},
  {"id": "turn3", "type": "GENERATION", "name": "claude.assistant.turn", "parentObservationId": "conv", "startTime": "2025-12-22T10:00:02Z",
   "input": "{\"content\": \"role\"}",
   "output": "{\"content\": [{\"type\": \"tool_use\", \"id\": \"toolu_P\", \"name\": \"mcp__weather__get\", \"input\": {\"city\": \"Paris\"}}], \"role\": \"assistant\"}"},
  {"id": "tool2", "type": "TOOL", "name": "mcp__weather__get", "parentObservationId": "conv", "startTime": "2025-12-22T10:00:04Z",
   "input": "{\"input\": {\"city\": \"Paris\"}}", "output": "{\"content\": [{\"type\": \"text\", \"text\": \"Paris: sunny\"}]}"},
  {"id": "tool1", "type": "TOOL", "name": "mcp__weather__get", "parentObservationId": "conv", "startTime": "2025-12-22T10:00:03Z",
   "input": "{\"input\": {\"city\": \"Berlin\"}}", "output": "{\"content\": [{\"type\": \"text\", \"text\": \"Berlin: cloudy\"}]}"},
  {"id": "turn4", "type": "GENERATION", "name": "claude.assistant.turn", "parentObservationId": "conv", "startTime": "2025-12-22T10:00:05Z",
   "input": "{\"content\": \"role\"}",
   "output": "{\"content\": [{\"type\": \"text\", \"text\": \"Berlin is cloudy, Paris sunny.\"}], \"role\": \"assistant\"}"}
 ]}`
	tr, rep := readOne(t, "claude.json", data, "langfuse")
	wantSteps(t, tr, `system You are a travel assistant.
user Weather in Berlin and Paris?
assistant I will check both.
assistant  [toolu_B mcp__weather__get({"city":"Berlin"})=>Berlin: cloudy]
assistant  [toolu_P mcp__weather__get({"city":"Paris"})=>Paris: sunny]
tool Berlin: cloudy
tool Paris: sunny
assistant Berlin is cloudy, Paris sunny.
`)
	if rep.ToolCalls != 2 || rep.Linked != 2 || tr.ID != "claude-1" || tr.Model != "claude-sonnet-4-5" {
		t.Errorf("calls %d linked %d id %s model %s", rep.ToolCalls, rep.Linked, tr.ID, tr.Model)
	}
}

// A Vercel AI SDK run exported from Langfuse (the shape of
// langfuse/langfuse framework-traces/vercel-aisdk-*.trace.json and
// packages/shared/src/utils/chatml/adapters/aisdk.ts): an ai.generateText
// GENERATION around its ai.generateText.doGenerate step, whose input is AI
// SDK messages (content parts) and whose output is a raw list of tool
// calls {toolCallId, toolName, input}; the ai.toolCall TOOL observation
// carries its call id in metadata.attributes.
func TestLangfuseVercelAISDK(t *testing.T) {
	data := `{"trace": {"id": "vercel-1", "input": "{\"prompt\": \"Weather in San Francisco?\"}"},
 "observations": [
  {"id": "outer", "type": "GENERATION", "name": "ai.generateText", "startTime": "2025-11-17T14:55:18.786Z", "model": "gpt-5",
   "input": "{\"prompt\": \"Weather in San Francisco?\"}",
   "output": "[{\"toolCallId\": \"call_1\", \"toolName\": \"getWeather\", \"input\": \"{\\\"location\\\": \\\"San Francisco\\\"}\"}]",
   "metadata": {"attributes": {"operation.name": "ai.generateText", "ai.operationId": "ai.generateText"}}},
  {"id": "step", "type": "GENERATION", "name": "ai.generateText.doGenerate", "parentObservationId": "outer", "startTime": "2025-11-17T14:55:18.787Z",
   "input": "[{\"role\": \"user\", \"content\": [{\"type\": \"text\", \"text\": \"Weather in San Francisco?\"}]}]",
   "output": "[{\"toolCallId\": \"call_1\", \"toolName\": \"getWeather\", \"input\": \"{\\\"location\\\": \\\"San Francisco\\\"}\"}]",
   "metadata": "{\"attributes\": {\"operation.name\": \"ai.generateText.doGenerate\", \"ai.operationId\": \"ai.generateText.doGenerate\"}}"},
  {"id": "tool", "type": "TOOL", "name": "getWeather", "parentObservationId": "outer", "startTime": "2025-11-17T14:55:21.831Z",
   "input": "{\"location\": \"San Francisco\"}", "output": "{\"location\": \"San Francisco\", \"temperature\": 64}",
   "metadata": {"attributes": {"operation.name": "ai.toolCall", "ai.toolCall.name": "getWeather", "ai.toolCall.id": "call_1"}}}
 ]}`
	tr, rep := readOne(t, "vercel.json", data, "langfuse")
	wantSteps(t, tr, `user Weather in San Francisco?
assistant  [call_1 getWeather({"location": "San Francisco"})=>{"location":"San Francisco","temperature":64}]
tool {"location":"San Francisco","temperature":64}
`)
	if rep.Linked != 1 || rep.Skipped["spans that wrap other LLM calls (their messages repeat them)"] != 0 {
		t.Errorf("linked %d skipped %v", rep.Linked, rep.Skipped)
	}
}

// Langfuse lists a generation's tool calls beside its output (toolCalls,
// JSON strings, with their names in toolCallNames) when the output holds
// only text.
func TestLangfuseToolCallsField(t *testing.T) {
	data := `{"trace": {"id": "tc-1"}, "observations": [
  {"id": "g", "type": "GENERATION", "startTime": "2025-01-01T00:00:00Z", "input": [{"role": "user", "content": "Weather in Oslo?"}], "output": "Checking.",
   "toolCalls": ["{\"id\":\"toolu_1\",\"arguments\":\"{\\\"city\\\":\\\"Oslo\\\"}\",\"type\":\"tool_use\",\"index\":0}"], "toolCallNames": ["get_weather"]},
  {"id": "t", "type": "TOOL", "name": "get_weather", "startTime": "2025-01-01T00:00:01Z", "input": {"city": "Oslo"}, "output": "snow"}]}`
	tr, _ := readOne(t, "tc.json", data, "langfuse")
	wantSteps(t, tr, `user Weather in Oslo?
assistant Checking.
assistant  [toolu_1 get_weather({"city":"Oslo"})=>snow]
tool snow
`)
}

// OpenInference spans that carry only input.value and output.value (the
// OpenInference spec, spec/semantic_conventions.md: input.value is the
// request as JSON, input.mime_type application/json; output.value the
// response): an LLM call's request {messages} and chat completion
// {choices[{message}]}, a TOOL span, and an AGENT span around them whose
// input and output are plain text.
func TestOpenInferenceValuesOnly(t *testing.T) {
	lines := []string{
		`{"name": "agent", "context": {"trace_id": "0xa1", "span_id": "0x1"}, "start_time": "2025-03-01T09:00:00Z", "attributes": {"openinference.span.kind": "AGENT", "input.value": "What is 6*7?", "input.mime_type": "text/plain", "output.value": "42"}}`,
		`{"name": "ChatCompletion", "context": {"trace_id": "0xa1", "span_id": "0x2"}, "parent_id": "0x1", "start_time": "2025-03-01T09:00:01Z", "attributes": {"openinference.span.kind": "LLM", "llm.model_name": "gpt-4o", "input.mime_type": "application/json", "input.value": "{\"model\": \"gpt-4o\", \"messages\": [{\"role\": \"system\", \"content\": \"Use the calculator.\"}, {\"role\": \"user\", \"content\": \"What is 6*7?\"}]}", "output.mime_type": "application/json", "output.value": "{\"id\": \"chatcmpl-1\", \"choices\": [{\"index\": 0, \"message\": {\"role\": \"assistant\", \"content\": null, \"tool_calls\": [{\"id\": \"call_c\", \"type\": \"function\", \"function\": {\"name\": \"calc\", \"arguments\": \"{\\\"expr\\\": \\\"6*7\\\"}\"}}]}}]}"}}`,
		`{"name": "calc", "context": {"trace_id": "0xa1", "span_id": "0x3"}, "parent_id": "0x1", "start_time": "2025-03-01T09:00:02Z", "attributes": {"openinference.span.kind": "TOOL", "tool.name": "calc", "input.value": "{\"expr\": \"6*7\"}", "output.value": "42"}}`,
		`{"name": "ChatCompletion", "context": {"trace_id": "0xa1", "span_id": "0x4"}, "parent_id": "0x1", "start_time": "2025-03-01T09:00:03Z", "attributes": {"openinference.span.kind": "LLM", "output.value": "{\"choices\": [{\"message\": {\"role\": \"assistant\", \"content\": \"6*7 is 42.\"}}]}"}}`,
	}
	tr, rep := readOne(t, "oi.jsonl", strings.Join(lines, "\n"), "otel")
	wantSteps(t, tr, `user What is 6*7?
system Use the calculator.
assistant  [call_c calc({"expr": "6*7"})=>42]
tool 42
assistant 6*7 is 42.
`)
	if tr.Model != "gpt-4o" || rep.Linked != 1 {
		t.Errorf("model %q linked %d", tr.Model, rep.Linked)
	}

	// One LLM span with plain text in and out is a run of two steps; a
	// retriever's query is not a message.
	one := `{"name": "llm", "context": {"trace_id": "0xb", "span_id": "0x1"}, "attributes": {"openinference.span.kind": "LLM", "input.value": "Say hi", "output.value": "Hi!"}}
{"name": "retrieve", "context": {"trace_id": "0xb", "span_id": "0x2"}, "attributes": {"openinference.span.kind": "RETRIEVER", "input.value": "greetings", "output.value": "[]"}}`
	tr, _ = readOne(t, "one.jsonl", one, "otel")
	wantSteps(t, tr, "user Say hi\nassistant Hi!\n")
}

// The deprecated GenAI attributes gen_ai.prompt and gen_ai.completion
// (OpenTelemetry semantic conventions before v1.28: "Deprecated, use Event
// API"), as a JSON string of messages on the span, as the attributes of
// gen_ai.content.prompt / gen_ai.content.completion span events, and as
// text.
func TestGenAIPromptCompletionJSON(t *testing.T) {
	data := `{"resourceSpans": [{"scopeSpans": [{"spans": [
  {"traceId": "t1", "spanId": "a", "name": "chat gpt-4", "startTimeUnixNano": "1718000001000000000", "attributes": [
    {"key": "gen_ai.system", "value": {"stringValue": "openai"}},
    {"key": "gen_ai.prompt", "value": {"stringValue": "[{\"role\": \"system\", \"content\": \"Be brief.\"}, {\"role\": \"user\", \"content\": \"Capital of France?\"}]"}},
    {"key": "gen_ai.completion", "value": {"stringValue": "[{\"role\": \"assistant\", \"content\": \"Paris.\"}]"}}]},
  {"traceId": "t1", "spanId": "b", "name": "chat gpt-4", "startTimeUnixNano": "1718000002000000000", "attributes": [], "events": [
    {"name": "gen_ai.content.prompt", "attributes": [{"key": "gen_ai.prompt", "value": {"stringValue": "[{\"role\": \"user\", \"content\": \"And of Italy?\"}]"}}]},
    {"name": "gen_ai.content.completion", "attributes": [{"key": "gen_ai.completion", "value": {"stringValue": "Rome."}}]}]}
]}]}]}`
	tr, _ := readOne(t, "old.json", data, "otel")
	wantSteps(t, tr, "system Be brief.\nuser Capital of France?\nassistant Paris.\nuser And of Italy?\nassistant Rome.\n")
}

// The indexed deprecated attributes as OpenLLMetry writes them
// (gen_ai.prompt.N.role / .content / .tool_call_id,
// gen_ai.completion.N.tool_calls.M.id / .name / .arguments, the legacy
// gen_ai.completion.N.function_call.*), in the SDK console exporter's span
// shape; a completion without a role is the model's.
func TestGenAIIndexedAttributes(t *testing.T) {
	lines := []string{
		`{"name": "openai.chat", "context": {"trace_id": "0xc", "span_id": "0x1"}, "start_time": "2025-01-01T00:00:00Z", "attributes": {"llm.request.type": "chat", "gen_ai.request.model": "gpt-4o", "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "Weather in Rome?", "gen_ai.completion.0.finish_reason": "tool_calls", "gen_ai.completion.0.tool_calls.0.id": "call_r", "gen_ai.completion.0.tool_calls.0.name": "weather", "gen_ai.completion.0.tool_calls.0.arguments": "{\"city\": \"Rome\"}"}}`,
		`{"name": "openai.chat", "context": {"trace_id": "0xc", "span_id": "0x2"}, "start_time": "2025-01-01T00:00:02Z", "attributes": {"gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "Weather in Rome?", "gen_ai.prompt.1.role": "assistant", "gen_ai.prompt.1.tool_calls.0.id": "call_r", "gen_ai.prompt.1.tool_calls.0.name": "weather", "gen_ai.prompt.1.tool_calls.0.arguments": "{\"city\": \"Rome\"}", "gen_ai.prompt.2.role": "tool", "gen_ai.prompt.2.tool_call_id": "call_r", "gen_ai.prompt.2.content": "sunny", "gen_ai.completion.0.content": "Sunny in Rome.", "gen_ai.completion.1.function_call.name": "log", "gen_ai.completion.1.function_call.arguments": "{}"}}`,
	}
	tr, rep := readOne(t, "ollm.jsonl", strings.Join(lines, "\n"), "otel")
	wantSteps(t, tr, `user Weather in Rome?
assistant  [call_r weather({"city": "Rome"})=>sunny]
tool sunny
assistant Sunny in Rome.
assistant  [ log({})=>]
`)
	if rep.Linked != 1 || tr.Model != "gpt-4o" {
		t.Errorf("linked %d model %q", rep.Linked, tr.Model)
	}
}

// A Vercel AI SDK span array as its legacy telemetry records it
// (vercel/ai content/docs/03-ai-sdk-core/60-telemetry.mdx, "Legacy AI SDK
// Spans", and packages/otel/src/__snapshots__/legacy-open-telemetry.test.ts.snap):
// {name, attributes, events} with no trace or span ids, ai.streamText
// around two ai.streamText.doStream steps and an ai.toolCall between them;
// ai.prompt.messages in AI SDK content parts (reasoning, tool-call with
// input, tool-result with output {type, value}), ai.response.toolCalls,
// ai.toolCall.args and a JSON-encoded ai.toolCall.result.
func TestVercelAISDKSpanArray(t *testing.T) {
	data := `[
  {"name": "ai.streamText", "attributes": {"ai.operationId": "ai.streamText", "ai.model.id": "mock-model", "ai.prompt": "{\"system\":\"Be exact.\",\"messages\":[{\"role\":\"user\",\"content\":\"test-input\"}]}", "ai.response.text": "Hello, world!", "ai.response.toolCalls": "[{\"toolCallId\":\"call-1\",\"toolName\":\"tool1\",\"input\":{\"value\":\"value\"}}]", "operation.name": "ai.streamText"}, "events": []},
  {"name": "ai.streamText.doStream", "attributes": {"ai.operationId": "ai.streamText.doStream", "ai.prompt.messages": "[{\"role\":\"system\",\"content\":\"Be exact.\"},{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"test-input\"}]}]", "ai.response.reasoning": "thinking", "ai.response.text": "", "ai.response.toolCalls": "[{\"toolCallId\":\"call-1\",\"toolName\":\"tool1\",\"input\":{\"value\":\"value\"}}]", "operation.name": "ai.streamText.doStream"}, "events": [{"name": "ai.stream.firstChunk", "attributes": {"ai.response.msToFirstChunk": 100}}]},
  {"name": "ai.toolCall", "attributes": {"ai.operationId": "ai.toolCall", "ai.toolCall.args": "{\"value\":\"value\"}", "ai.toolCall.id": "call-1", "ai.toolCall.name": "tool1", "ai.toolCall.result": "\"result1\"", "operation.name": "ai.toolCall"}, "events": []},
  {"name": "ai.streamText.doStream", "attributes": {"ai.operationId": "ai.streamText.doStream", "ai.prompt.messages": "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"test-input\"}]},{\"role\":\"assistant\",\"content\":[{\"type\":\"reasoning\",\"text\":\"thinking\"},{\"type\":\"tool-call\",\"toolCallId\":\"call-1\",\"toolName\":\"tool1\",\"input\":{\"value\":\"value\"}}]},{\"role\":\"tool\",\"content\":[{\"type\":\"tool-result\",\"toolCallId\":\"call-1\",\"toolName\":\"tool1\",\"output\":{\"type\":\"text\",\"value\":\"result1\"}}]}]", "ai.response.text": "Hello, world!", "operation.name": "ai.streamText.doStream"}, "events": []}
]`
	tr, rep := readOne(t, "aisdk.json", data, "otel")
	wantSteps(t, tr, `system Be exact.
user test-input
assistant (reasoning) thinking [call-1 tool1({"value":"value"})=>result1]
tool result1
assistant Hello, world!
`)
	if tr.ID != "aisdk" || tr.Model != "mock-model" || rep.Linked != 1 {
		t.Errorf("id %q model %q linked %d", tr.ID, tr.Model, rep.Linked)
	}
}

// The AI SDK before version 5 (ai.result.text, tool calls with args, tool
// results with result) as an OTLP export with span ids: ai.generateText
// wraps its doGenerate steps by parent id.
func TestVercelAISDKv4OTLP(t *testing.T) {
	attr := func(k, v string) string { return fmt.Sprintf(`{"key": %q, "value": {"stringValue": %q}}`, k, v) }
	span := func(id, parent, name, start string, attrs ...string) string {
		return fmt.Sprintf(`{"traceId": "tv4", "spanId": %q, "parentSpanId": %q, "name": %q, "startTimeUnixNano": %q, "attributes": [%s]}`, id, parent, name, start, strings.Join(attrs, ", "))
	}
	data := `{"resourceSpans": [{"scopeSpans": [{"spans": [` + strings.Join([]string{
		span("1", "", "ai.generateText", "1000", attr("ai.operationId", "ai.generateText"), attr("ai.prompt", `{"prompt":"Add 2 and 3"}`), attr("ai.result.text", "5")),
		span("2", "1", "ai.generateText.doGenerate", "1001", attr("ai.operationId", "ai.generateText.doGenerate"), attr("ai.prompt.messages", `[{"role":"user","content":[{"type":"text","text":"Add 2 and 3"}]}]`), attr("ai.result.toolCalls", `[{"toolCallType":"function","toolCallId":"c1","toolName":"add","args":"{\"a\":2,\"b\":3}"}]`)),
		span("3", "1", "ai.toolCall", "1002", attr("ai.toolCall.name", "add"), attr("ai.toolCall.id", "c1"), attr("ai.toolCall.args", `{"a":2,"b":3}`), attr("ai.toolCall.result", "5")),
		span("4", "1", "ai.generateText.doGenerate", "1003", attr("ai.operationId", "ai.generateText.doGenerate"), attr("ai.prompt.messages", `[{"role":"user","content":"Add 2 and 3"},{"role":"assistant","content":[{"type":"tool-call","toolCallId":"c1","toolName":"add","args":{"a":2,"b":3}}]},{"role":"tool","content":[{"type":"tool-result","toolCallId":"c1","toolName":"add","result":5}]}]`), attr("ai.result.text", "5")),
	}, ",") + `]}]}]}`
	tr, rep := readOne(t, "v4.json", data, "otel")
	wantSteps(t, tr, `user Add 2 and 3
assistant  [c1 add({"a":2,"b":3})=>5]
tool 5
assistant 5
`)
	if rep.Skipped["spans that wrap other LLM calls (their messages repeat them)"] != 0 || rep.Linked != 1 {
		t.Errorf("skipped %v linked %d", rep.Skipped, rep.Linked)
	}
}

// SWE-agent ends a run on the final submit: history has the call, only
// the trajectory's last step has its observation (the diff). Without
// function calling the observation of an action is the next (user)
// message; with it, a call the harness answers itself gets a user
// message too (SWE-agent trajectories/demonstrations, tests/test_data).
func TestSWEAgentFinalSubmitAndNextMessage(t *testing.T) {
	data := `{"environment": "swe_main", "info": {"exit_status": "submitted", "submission": "diff --git a/x b/x"},
 "trajectory": [
  {"action": "ls\n", "observation": "x.py", "response": "", "thought": ""},
  {"action": "edit 1:1\nfix\nend_of_edit\n", "observation": "File updated.", "response": "", "thought": ""},
  {"action": "submit\n", "observation": "\ndiff --git a/x b/x\n", "response": "", "thought": ""}],
 "history": [
  {"role": "system", "content": "SETTING: …", "agent": "primary"},
  {"role": "user", "content": "ISSUE:\nx.py is broken\nINSTRUCTIONS: …", "agent": "primary"},
  {"role": "assistant", "content": "Let me look.", "action": "ls\n", "agent": "primary"},
  {"role": "user", "content": "x.py", "agent": "primary"},
  {"role": "assistant", "content": "Fix it.", "tool_calls": [{"id": "call_e", "type": "function", "function": {"name": "edit", "arguments": "{\"line\": 1}"}}], "agent": "primary"},
  {"role": "user", "content": "File updated.", "message_type": "observation", "agent": "primary"},
  {"role": "assistant", "content": "Done.", "action": "submit\n", "agent": "primary"}]}`
	tr, rep := readOne(t, "run.traj", data, "swe-agent")
	wantSteps(t, tr, `system SETTING: …
user ISSUE:
x.py is broken
INSTRUCTIONS: …
assistant Let me look. [ ls(ls)=>x.py]
user x.py
assistant Fix it. [call_e edit({"line": 1})=>File updated.]
user File updated.
assistant Done. [ submit(submit)=>
diff --git a/x b/x
]
`)
	if rep.Linked != 3 || rep.Skipped["tool calls with no result in the file"] != 0 || tr.Task != "x.py is broken" {
		t.Errorf("linked %d skipped %v task %q", rep.Linked, rep.Skipped, tr.Task)
	}
}
