package curator

import (
	"context"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Complete asks the model one question without tools (system prompt, then
// the user's text) and returns its answer's text, trimmed. during says what
// was being done, for the error sentence.
func (l LLM) Complete(ctx context.Context, system, user, during string) (string, error) {
	resp, _, err := l.chat(ctx, openai.ChatCompletionRequest{
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: system},
			{Role: openai.ChatMessageRoleUser, Content: user},
		},
		Temperature: 0,
	}, during)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(resp.Choices[0].Message.Content), nil
}
