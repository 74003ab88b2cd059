package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/memreview/memreview/curator"
	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

// DefaultTaskTimeout bounds one task run.
const DefaultTaskTimeout = 5 * time.Minute

// Tools the task agent is given: one to query its environment and one to
// answer. A SQL environment (sqlite, postgres) gets sql_query; any other
// kind gets probe, whose input is the probe console's (ls, read, grep, …;
// a tool call for mcp).
const (
	ToolSQL    = "sql_query"
	ToolProbe  = "probe"
	ToolAnswer = "answer"
)

// maxProse is how many answers in prose, where a tool call was required,
// end a task run.
const maxProse = 2

// resultCap is the bytes of a tool result the model sees.
const resultCap = 16 << 10

// Agent is the task agent: a chat model given the task's environment as
// read-only tools and a budget of tool calls.
type Agent struct {
	LLM     curator.LLM
	Probe   ProbeFunc
	Budget  int           // environment tool calls a task may make; 0: DefaultBudget
	Timeout time.Duration // per task run; 0: DefaultTaskTimeout
}

// agentRun is the state of one task run.
type agentRun struct {
	a     Agent
	task  *review.Task
	tools []openai.Tool
	names []string
	tr    *TaskRun
	msgs  []openai.ChatCompletionMessage
}

// Run works task t (its environment of kind kind) with guidelines in the
// system prompt and returns its task run, not yet graded: Status is
// Errored when the model server failed, "" otherwise. Every fault of the
// model is counted in the run's Faults, never returned. The error is ctx's
// when ctx ended (the eval was stopped): that task run did not happen.
func (a Agent) Run(ctx context.Context, t *review.Task, kind probe.Kind, guidelines []review.Record, seed int) (TaskRun, error) {
	if a.Budget <= 0 {
		a.Budget = DefaultBudget
	}
	if a.Timeout <= 0 {
		a.Timeout = DefaultTaskTimeout
	}
	tr := TaskRun{Task: t.ID, Seed: seed, Model: a.LLM.Settings.Model, Started: time.Now().UTC()}
	for _, r := range guidelines {
		tr.Retrieved = append(tr.Retrieved, r.ID)
	}
	ar := &agentRun{a: a, task: t, tr: &tr}
	ar.declare(kind)
	system := systemPrompt(t, kind, a.Budget, Guidelines(guidelines))
	ar.msgs = []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: system},
		{Role: openai.ChatMessageRoleUser, Content: t.Text},
	}
	tr.Messages = []review.Step{{Role: "system", Content: system}, {Role: "user", Content: t.Text}}
	tctx, cancel := context.WithTimeout(ctx, a.Timeout)
	err := ar.converse(tctx, seed)
	cancel()
	tr.Ended = time.Now().UTC()
	if ctx.Err() != nil {
		return tr, ctx.Err()
	}
	if err != nil {
		tr.Status, tr.Error = Errored, err.Error()
	}
	tr.Faults.NoToolCall = len(tr.Calls) == 0 && !tr.Answered
	return tr, nil
}

// systemPrompt tells the task agent what it has and how to answer.
func systemPrompt(t *review.Task, kind probe.Kind, budget int, guidelines string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are a task agent. Work the user's task in the environment %q (%s), which you query read-only with your tools; you may make at most %d queries. ", t.Env, kind, budget)
	b.WriteString("Answer only through the answer tool, with the value alone (a number, a name, or several values separated by commas), not a sentence.\n")
	if guidelines != "" {
		b.WriteString("\n" + guidelines)
	}
	return b.String()
}

func (ar *agentRun) declare(kind probe.Kind) {
	query := fn(ToolProbe, "Run one read-only probe on the environment: ls DIR, read FILE, grep PATTERN PATH, stat PATH, csv FILE (files), or a tool call (mcp).",
		map[string]any{"input": str("the probe input")})
	if kind == probe.KindSQL || kind == probe.KindPostgres {
		query = fn(ToolSQL, "Run one read-only SQL statement on the environment; rows are capped.", map[string]any{"sql": str("one SELECT statement")})
	}
	ar.tools = []openai.Tool{query, fn(ToolAnswer, "Give your final answer and end the task.", map[string]any{"answer": str("the value alone")})}
	ar.names = []string{query.Function.Name, ToolAnswer}
}

const nudge = "Call a tool: query the environment, or give your final answer with the answer tool."

// converse runs the tool-calling loop until an answer, the budget, too
// much prose, or a failure of the model server.
func (ar *agentRun) converse(ctx context.Context, seed int) error {
	tr := ar.tr
	maxTurns := ar.a.Budget + maxProse + 2
	for tr.Turns < maxTurns {
		tr.Turns++
		resp, _, err := ar.a.LLM.Chat(ctx, openai.ChatCompletionRequest{Messages: ar.msgs, Tools: ar.tools, Seed: &seed},
			fmt.Sprintf("working task %s (turn %d)", ar.task.ID, tr.Turns))
		tr.Input += resp.Usage.PromptTokens
		tr.Output += resp.Usage.CompletionTokens
		if err != nil {
			ar.count(err)
			return err
		}
		msg := resp.Choices[0].Message
		msg.Role = openai.ChatMessageRoleAssistant
		step := review.Step{Role: "assistant", Content: msg.Content}
		for i := range msg.ToolCalls {
			if msg.ToolCalls[i].Type == "" {
				msg.ToolCalls[i].Type = openai.ToolTypeFunction // some local servers omit it
			}
			step.ToolCalls = append(step.ToolCalls, review.ToolCall{ID: msg.ToolCalls[i].ID, Name: msg.ToolCalls[i].Function.Name, Arguments: msg.ToolCalls[i].Function.Arguments})
		}
		ar.msgs = append(ar.msgs, msg)
		tr.Messages = append(tr.Messages, step)
		at := len(tr.Messages) - 1
		if len(msg.ToolCalls) == 0 {
			tr.Faults.Prose++
			if tr.Faults.Prose >= maxProse {
				tr.Grade = "the model answered in prose instead of calling a tool"
				return nil
			}
			ar.msgs = append(ar.msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: nudge})
			tr.Messages = append(tr.Messages, review.Step{Role: "user", Content: nudge})
			continue
		}
		for i, tc := range msg.ToolCalls {
			result, done := ar.call(ctx, tc)
			tr.Messages[at].ToolCalls[i].Result = result
			ar.msgs = append(ar.msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: tc.ID, Content: result})
			tr.Messages = append(tr.Messages, review.Step{Role: "tool", ToolCallID: tc.ID, Name: tc.Function.Name, Content: result})
			if done {
				return nil
			}
		}
	}
	tr.Grade = fmt.Sprintf("the model did not answer within %d turns", maxTurns)
	return nil
}

// count records what kind of failure err was.
func (ar *agentRun) count(err error) {
	f := &ar.tr.Faults
	var ce *curator.ChatError
	switch {
	case !errors.As(err, &ce):
		f.Other = true
	case ce.Status == 429:
		f.RateLimited = true
	case ce.Status >= 500:
		f.ServerError = true
	case ce.Timeout:
		f.Timeout = true
	default:
		f.Other = true
	}
}

// call runs one tool call; done reports that the task run ended (an
// answer, or the budget spent).
func (ar *agentRun) call(ctx context.Context, tc openai.ToolCall) (result string, done bool) {
	tr := ar.tr
	name, args := tc.Function.Name, tc.Function.Arguments
	begin := time.Now()
	c := Call{Name: name, Args: args}
	defer func() {
		c.Result, c.DurationMS = result, float64(time.Since(begin).Microseconds())/1000
		tr.Calls = append(tr.Calls, c)
	}()
	refuse := func(why string) (string, bool) {
		c.Err = why
		return "error: " + why, false
	}
	if name == ToolAnswer {
		var a struct {
			Answer json.RawMessage `json:"answer"`
		}
		if err := json.Unmarshal([]byte(args), &a); err != nil || len(a.Answer) == 0 {
			tr.Faults.BadArgs++
			return refuse(`answer needs {"answer": "the value"}`)
		}
		tr.Answer, tr.Answered = answerText(a.Answer), true
		return "answer recorded", true
	}
	if tr.ToolCalls >= ar.a.Budget {
		tr.Faults.OverBudget = true
		tr.Grade = fmt.Sprintf("the model went over its budget of %d tool calls", ar.a.Budget)
		c.Err = "over budget"
		return "error: the budget of tool calls is spent", true
	}
	tr.ToolCalls++
	input, err := ar.probeInput(name, args)
	if err != nil {
		return refuse(err.Error())
	}
	res := ar.a.Probe(ctx, ar.task.Env, input)
	return probeText(res), false
}

// probeInput is the probe a query tool call asks for.
func (ar *agentRun) probeInput(name, args string) (string, error) {
	query := ar.names[0]
	if name != query {
		ar.tr.Faults.UnknownTool++
		return "", fmt.Errorf("unknown tool %q; the tools are %s", name, strings.Join(ar.names, ", "))
	}
	var a map[string]any
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		ar.tr.Faults.BadArgs++
		return "", fmt.Errorf("the arguments of %s are not a JSON object (%v)", name, err)
	}
	field := "input"
	if name == ToolSQL {
		field = "sql"
	}
	s, _ := a[field].(string)
	if strings.TrimSpace(s) == "" {
		ar.tr.Faults.BadArgs++
		return "", fmt.Errorf("%s needs a non-empty %q", name, field)
	}
	return s, nil
}

// answerText is an answer as given: a JSON string's text, or any other
// JSON value as written.
func answerText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	return strings.TrimSpace(string(raw))
}

// probeText is a probe result as the model sees it.
func probeText(res probe.Result) string {
	out := struct {
		Columns   []string `json:"columns,omitempty"`
		Rows      [][]any  `json:"rows,omitempty"`
		Text      string   `json:"text,omitempty"`
		Truncated bool     `json:"truncated,omitempty"`
		Error     string   `json:"error,omitempty"`
	}{res.Columns, probe.FiniteRows(res.Rows), res.Text, res.Truncated, res.Error}
	b, err := json.Marshal(out)
	if err != nil {
		return "error: the result could not be encoded"
	}
	return clip(string(b), resultCap)
}

// fn declares a strict function tool whose properties are all required
// strings.
func fn(name, desc string, props map[string]any) openai.Tool {
	req := make([]string, 0, len(props))
	for k := range props {
		req = append(req, k)
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "additionalProperties": false, "required": req, "properties": props})
	return openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: name, Description: desc, Strict: true, Parameters: json.RawMessage(b)}}
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
