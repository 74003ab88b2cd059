package mcpenv

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/probe"
)

// Usage says what an mcp probe is.
const Usage = probe.MCPUsage

// Limits bound one call's output.
type Limits struct {
	MaxRows  int
	MaxBytes int
}

// Output is a call's result: a table when the structured content is a
// list of objects, otherwise text.
type Output struct {
	Columns   []string
	Rows      [][]any // string, int64, float64, bool as "true"/"false", or nil
	Text      string
	Truncated bool
	Note      string // AllowListNote when the tool is callable through the allow-list only
}

// ParseInput splits "TOOL {json}" into the tool name and its arguments.
func ParseInput(input string) (name string, args map[string]any, err error) {
	input = strings.TrimSpace(input)
	name, rest, _ := strings.Cut(input, " ")
	if i := strings.IndexAny(name, "{\t\n"); i >= 0 {
		name, rest = name[:i], input[i:]
	}
	rest = strings.TrimSpace(rest)
	if name == "" {
		return "", nil, errors.New("empty request: give " + Usage)
	}
	args = map[string]any{}
	if rest == "" {
		return name, args, nil
	}
	d := json.NewDecoder(strings.NewReader(rest))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return "", nil, fmt.Errorf("the arguments of %s are not valid JSON: %v", name, err)
	}
	if d.More() {
		return "", nil, fmt.Errorf("the arguments of %s must be one JSON object; found more after it", name)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return "", nil, fmt.Errorf("the arguments of %s must be a JSON object, not %s", name, jsonKind(v))
	}
	return name, numbersAsFloats(obj).(map[string]any), nil
}

// numbersAsFloats turns json.Number into float64 (what the schema
// validator expects) and keeps integers beyond 2^53 exact as int64.
func numbersAsFloats(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil && (i > 1<<53 || i < -(1<<53)) {
			return i
		}
		f, _ := t.Float64()
		return f
	case map[string]any:
		for k, x := range t {
			t[k] = numbersAsFloats(x)
		}
	case []any:
		for i, x := range t {
			t[i] = numbersAsFloats(x)
		}
	}
	return v
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case nil:
		return "null"
	case bool:
		return "a boolean"
	}
	return "a number"
}

// Call runs one probe: it parses input, refuses a tool that is not
// callable or arguments its schema rejects (no call is made then), calls
// the tool and shapes the result within lim.
func (c *Client) Call(ctx context.Context, input string, lim Limits) (Output, error) {
	name, args, err := ParseInput(input)
	if err != nil {
		return Output{}, err
	}
	s, err := c.get(ctx)
	if err != nil {
		return Output{}, err
	}
	tools, err := c.tools(ctx, s)
	if err != nil {
		return Output{}, err
	}
	i := slices.IndexFunc(tools, func(t Tool) bool { return t.Name == name })
	if i < 0 {
		return Output{}, fmt.Errorf("the MCP server of %q has no tool named %q; callable: %s", c.cfg.Name, name, callableNames(tools))
	}
	t := tools[i]
	if !t.Callable {
		return Output{}, fmt.Errorf("refused: %s is not callable: %s; it was not called", name, strings.TrimPrefix(t.Why, "not callable: "))
	}
	if err := t.schema.Validate(args); err != nil {
		return Output{}, fmt.Errorf("refused: the arguments do not match %s's input schema (%s); it was not called", name, oneLine(err.Error()))
	}
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return Output{}, c.callError(ctx, s, name, err)
	}
	out := shape(res, lim)
	if res.IsError {
		msg := out.Text
		if msg == "" {
			msg = "(no message)"
		}
		return Output{}, fmt.Errorf("the tool %s reported an error: %s", name, clip(oneLine(msg), 500))
	}
	if t.AllowListed {
		out.Note = AllowListNote
	}
	return out, nil
}

func callableNames(tools []Tool) string {
	var names []string
	for _, t := range tools {
		if t.Callable {
			names = append(names, t.Name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// callError says why a request failed. A JSON-RPC error answer leaves
// the session as it is; anything else (the server exited, sent a message
// over the cap or malformed JSON-RPC) ends it, and the next probe starts a
// new one.
func (c *Client) callError(ctx context.Context, s *session, what string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return fmt.Errorf("the MCP server of %q answered %s with an error: %s", c.cfg.Name, what, clip(oneLine(we.Message), 300))
	}
	// The session is broken: give it a moment to end, and a stdio server
	// a moment to exit, so the error can say why.
	select {
	case <-s.ended:
	case <-time.After(time.Second):
	}
	exited := false
	if s.exited != nil {
		select {
		case <-s.exited:
			exited = true
		case <-time.After(300 * time.Millisecond):
		}
	}
	var msg string
	switch {
	case errors.Is(err, ErrTooLarge) || (s.out != nil && s.out.over.Load()):
		msg = fmt.Sprintf("it sent a message larger than %d MiB", c.cfg.MaxMessage>>20)
	case exited:
		msg = c.exitError(s).Error()
	case !s.alive() && s.why != nil:
		msg = oneLine(s.why.Error())
	default:
		msg = clip(oneLine(err.Error()), 300)
	}
	c.drop(s)
	return fmt.Errorf("the MCP server of %q ended the session during %s: %s; it is restarted on the next probe", c.cfg.Name, what, msg)
}

// shape turns a call result into a table (structured content that is a
// list of objects, or an object holding one) or text, within lim.
func shape(res *mcp.CallToolResult, lim Limits) Output {
	if rows := objectList(res.StructuredContent); rows != nil && !res.IsError {
		return table(rows, lim)
	}
	var b strings.Builder
	for _, ct := range res.Content {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		switch x := ct.(type) {
		case *mcp.TextContent:
			b.WriteString(x.Text)
		case *mcp.ImageContent:
			fmt.Fprintf(&b, "[image %s, %d bytes]", x.MIMEType, len(x.Data))
		case *mcp.AudioContent:
			fmt.Fprintf(&b, "[audio %s, %d bytes]", x.MIMEType, len(x.Data))
		case *mcp.ResourceLink:
			fmt.Fprintf(&b, "[resource link %s]", x.URI)
		case *mcp.EmbeddedResource:
			if x.Resource != nil && x.Resource.Text != "" {
				b.WriteString(x.Resource.Text)
			} else if x.Resource != nil {
				fmt.Fprintf(&b, "[resource %s, %d bytes]", x.Resource.URI, len(x.Resource.Blob))
			}
		default:
			b.WriteString("[content of an unknown type]")
		}
	}
	if b.Len() == 0 && res.StructuredContent != nil {
		j, _ := json.Marshal(res.StructuredContent)
		b.Write(j)
	}
	text := b.String()
	out := Output{Text: text}
	if len(text) > lim.MaxBytes {
		cut := lim.MaxBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		out.Text, out.Truncated = text[:cut], true
	}
	return out
}

// objectList returns v as a list of objects: v itself, or the one list
// field of an object (MCP's structured content is an object).
func objectList(v any) []map[string]any {
	if b, err := json.Marshal(v); err == nil && v != nil {
		var g any
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if d.Decode(&g) == nil {
			v = g
		}
	}
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		for _, x := range m {
			v = x
		}
	}
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil
	}
	rows := make([]map[string]any, 0, len(list))
	for _, x := range list {
		m, ok := x.(map[string]any)
		if !ok {
			return nil
		}
		rows = append(rows, m)
	}
	return rows
}

// table lays rows out under the union of their keys, in first-seen order
// (keys of one object sorted); nested values become JSON text.
func table(rows []map[string]any, lim Limits) Output {
	var out Output
	seen := map[string]int{}
	for _, r := range rows {
		keys := make([]string, 0, len(r))
		for k := range r {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if _, ok := seen[k]; !ok {
				seen[k] = len(out.Columns)
				out.Columns = append(out.Columns, k)
			}
		}
	}
	used := 0
	for _, r := range rows {
		if len(out.Rows) >= lim.MaxRows {
			out.Truncated = true
			break
		}
		row := make([]any, len(out.Columns))
		for k, v := range r {
			row[seen[k]] = cell(v)
			if s, ok := row[seen[k]].(string); ok {
				used += len(s)
			} else {
				used += 8
			}
		}
		if used > lim.MaxBytes {
			out.Truncated = true
			break
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

func cell(v any) any {
	switch t := v.(type) {
	case nil, string:
		return t
	case bool:
		if t {
			return "true"
		}
		return "false"
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		if f, err := t.Float64(); err == nil && !math.IsInf(f, 0) {
			return f
		}
		return t.String()
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
