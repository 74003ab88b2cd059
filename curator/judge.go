package curator

import (
	"context"
	"encoding/json"
	"fmt"

	openai "github.com/sashabaranov/go-openai"

	"github.com/memreview/memreview/review/screen"
)

// Judge is the poisoning screen's LLM judge (screen.Judge) on the
// curator's OpenAI-compatible endpoint: it sends the screen's prompt,
// forces the one tool the prompt names and returns that call's
// arguments. What it sends has its secrets redacted already (the screen
// builds the prompt); its findings are marked as the judge's.
type Judge struct{ LLM LLM }

// NewJudge returns the judge on s's endpoint and model.
func NewJudge(s Settings) Judge { return Judge{LLM: NewLLM(s)} }

// Ask implements screen.Judge.
func (j Judge) Ask(ctx context.Context, p screen.JudgePrompt) (string, error) {
	req := openai.ChatCompletionRequest{
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: p.System},
			{Role: openai.ChatMessageRoleUser, Content: p.User},
		},
		Tools: []openai.Tool{{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: p.Tool.Name, Description: p.Tool.Description, Parameters: json.RawMessage(p.Tool.Parameters)}}},
		ToolChoice: openai.ToolChoice{Type: openai.ToolTypeFunction, Function: openai.ToolFunction{Name: p.Tool.Name}},
	}
	if j.LLM.Settings.RunTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, j.LLM.Settings.RunTimeout)
		defer cancel()
	}
	resp, _, err := j.LLM.chat(ctx, req, "screening text")
	if err != nil {
		return "", err
	}
	for _, tc := range resp.Choices[0].Message.ToolCalls {
		if tc.Function.Name == p.Tool.Name {
			return tc.Function.Arguments, nil
		}
	}
	return "", fmt.Errorf("the model answered without calling %s", p.Tool.Name)
}

var _ screen.Judge = Judge{}
