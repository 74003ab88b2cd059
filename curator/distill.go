package curator

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/memreview/memreview/review"
)

//go:embed prompts/*.md
var prompts embed.FS

func prompt(name string) string {
	b, err := prompts.ReadFile("prompts/" + name + ".md")
	if err != nil {
		panic("curator: missing embedded prompt " + name) // a build defect, not a run failure
	}
	return string(b)
}

// packetSchema is the strict JSON schema of a distilled trajectory.
var packetSchema = obj(map[string]any{
	"task":      str("the task, restated in one sentence"),
	"retrieved": arr(str("id of a memory record the task agent retrieved")),
	"observations": arr(obj(map[string]any{
		"steps": stepRangeSchema,
		"text":  str("a decisive observation, with exact names and values"),
	})),
	"procedures":  arr(str("a procedure that worked, as short imperative steps")),
	"assumptions": arr(str("an assumption the agent made and never checked")),
	"answer":      str("the final answer the agent gave"),
})

// distill asks the model for a Packet summarising t, in one chat
// completion with a strict JSON-schema answer, and validates it: the task
// must be non-empty and every observation must cite steps inside the
// trajectory. It bounds itself by the run timeout of llm.Settings, and
// reports the tokens used and the time spent waiting for the model.
func distill(ctx context.Context, llm LLM, t *review.Trajectory) (*review.Packet, openai.Usage, time.Duration, error) {
	s := llm.Settings.withDefaults()
	ctx, cancel := context.WithTimeout(ctx, s.RunTimeout)
	defer cancel()
	schema, _ := json.Marshal(packetSchema)
	req := openai.ChatCompletionRequest{
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: prompt("distiller")},
			{Role: openai.ChatMessageRoleUser, Content: renderTrajectory(t)},
		},
		ResponseFormat: &openai.ChatCompletionResponseFormat{
			Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
				Name: "packet", Schema: json.RawMessage(schema), Strict: true,
			},
		},
	}
	resp, took, err := llm.chat(ctx, req, "distilling "+t.ID)
	if err != nil {
		return nil, resp.Usage, took, err
	}
	p, err := parsePacket(resp.Choices[0].Message.Content, len(t.Steps))
	if err != nil {
		return nil, resp.Usage, took, fmt.Errorf("curator: the distilled packet for %s from model %q is unusable: %v; try again or use a model that follows JSON schemas", t.ID, s.Model, err)
	}
	return p, resp.Usage, took, nil
}

// parsePacket decodes and validates a distiller answer for a trajectory of
// n steps.
func parsePacket(content string, n int) (*review.Packet, error) {
	var p review.Packet
	if err := json.Unmarshal([]byte(stripFence(content)), &p); err != nil {
		return nil, fmt.Errorf("its answer is not the packet JSON (%v)", err)
	}
	p.Task = strings.TrimSpace(p.Task)
	if p.Task == "" {
		return nil, fmt.Errorf("its task is empty")
	}
	for i, o := range p.Observations {
		if err := checkSteps(o.Steps, n); err != nil {
			return nil, fmt.Errorf("observation %d %v", i+1, err)
		}
		if strings.TrimSpace(o.Text) == "" {
			return nil, fmt.Errorf("observation %d has no text", i+1)
		}
	}
	return &p, nil
}

// checkSteps reports a step range that is not inside a trajectory of n steps.
func checkSteps(r review.StepRange, n int) error {
	if r.From < 1 || r.To < r.From || r.To > n {
		return fmt.Errorf("cites steps %d–%d, but the trajectory has steps 1–%d", r.From, r.To, n)
	}
	return nil
}

// stripFence removes a ``` fence some servers wrap JSON answers in.
func stripFence(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "```") {
		return s
	}
	s = strings.TrimPrefix(s, "```")
	s = strings.TrimPrefix(s, "json")
	return strings.TrimSuffix(strings.TrimSpace(s), "```")
}

const fieldCap = 1500

// renderTrajectory lays out a trajectory for the model: numbered steps,
// tool calls with their results, long fields clipped.
func renderTrajectory(t *review.Trajectory) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Trajectory %s\nTask: %s\n", t.ID, t.Task)
	if t.Env != "" {
		fmt.Fprintf(&b, "Environment: %s\n", t.Env)
	}
	fmt.Fprintf(&b, "Outcome: %s", t.Outcome.Words())
	if t.Outcome.Notes != "" {
		fmt.Fprintf(&b, " (%s)", clip(t.Outcome.Notes, fieldCap))
	}
	b.WriteString("\n")
	if len(t.Retrieved) > 0 {
		fmt.Fprintf(&b, "Retrieved records: %s\n", strings.Join(t.Retrieved, ", "))
	}
	fmt.Fprintf(&b, "Steps (%d):\n", len(t.Steps))
	for i, st := range t.Steps {
		fmt.Fprintf(&b, "[%d] %s", i+1, st.Role)
		if st.Name != "" {
			fmt.Fprintf(&b, " (%s)", st.Name)
		}
		b.WriteString(":")
		if st.Content != "" {
			b.WriteString(" " + clip(st.Content, fieldCap))
		}
		b.WriteString("\n")
		for _, c := range st.ToolCalls {
			fmt.Fprintf(&b, "    call %s(%s)\n", c.Name, clip(c.Arguments, fieldCap))
			if c.Result != "" {
				fmt.Fprintf(&b, "    → %s\n", clip(c.Result, fieldCap))
			}
		}
	}
	return b.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… [%d more bytes]", len(s)-cut)
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
