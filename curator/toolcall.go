package curator

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// CallTool makes one chat call that must answer by calling the tool name
// (parameters: a JSON schema) and returns the call's arguments as JSON. An
// answer in prose, a call of another tool, or arguments that are not a
// JSON object are errors that say so. during names what was being done.
func (l LLM) CallTool(ctx context.Context, system, user, name, description string, parameters any, during string) (string, error) {
	resp, _, err := l.chat(ctx, openai.ChatCompletionRequest{
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: system},
			{Role: openai.ChatMessageRoleUser, Content: user},
		},
		Tools: []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: name, Description: description, Parameters: parameters}}},
		ToolChoice:  openai.ToolChoice{Type: openai.ToolTypeFunction, Function: openai.ToolFunction{Name: name}},
		Temperature: 0,
	}, during)
	if err != nil {
		return "", err
	}
	msg := resp.Choices[0].Message
	if len(msg.ToolCalls) == 0 {
		return "", fmt.Errorf("the model answered in prose instead of calling %s while %s: %q", name, during, snippet(strings.TrimSpace(msg.Content)))
	}
	call := msg.ToolCalls[0].Function
	if call.Name != name {
		return "", fmt.Errorf("the model called %q instead of %s while %s", call.Name, name, during)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(call.Arguments), &obj); err != nil {
		return "", fmt.Errorf("the model's %s arguments are not a JSON object while %s: %v", name, during, err)
	}
	return call.Arguments, nil
}
