package mcpenv

import (
	"context"
	"encoding/json"
	"fmt"
	"hash"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memreview/memreview/probe"
)

// Tool is one tool of the server as memreview sees it: what probe shows
// of it (its annotations, its input schema, whether a probe may call it,
// and why), and the schema resolved for checking arguments.
type Tool struct {
	probe.Tool

	schema *jsonschema.Resolved // nil when InputSchema is invalid
}

// AllowListNote marks every result of a tool called through the allow-list.
const AllowListNote = "read-only by your allow-list, not by the server"

// maxToolPages bounds tools/list pagination.
const maxToolPages = 50

// Tools lists the server's tools (once per session) with what a probe may
// call.
func (c *Client) Tools(ctx context.Context) ([]Tool, error) {
	s, err := c.get(ctx)
	if err != nil {
		return nil, err
	}
	return c.tools(ctx, s)
}

func (c *Client) tools(ctx context.Context, s *session) ([]Tool, error) {
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	if s.tools != nil {
		return s.tools, nil
	}
	var raw []*mcp.Tool
	params := &mcp.ListToolsParams{}
	for page := 0; ; page++ {
		if page == maxToolPages {
			return nil, fmt.Errorf("the MCP server of %q lists more than %d pages of tools", c.cfg.Name, maxToolPages)
		}
		res, err := s.cs.ListTools(ctx, params)
		if err != nil {
			return nil, c.callError(ctx, s, "tools/list", err)
		}
		raw = append(raw, res.Tools...)
		if res.NextCursor == "" {
			break
		}
		params = &mcp.ListToolsParams{Cursor: res.NextCursor}
	}
	tools := make([]Tool, 0, len(raw))
	for _, t := range raw {
		tools = append(tools, c.judge(t))
	}
	slices.SortFunc(tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	s.tools = tools
	return tools, nil
}

// judge decides whether t is callable: annotated readOnlyHint true and
// not destructiveHint true, or named in the allow-list; and its input
// schema must be valid JSON Schema, so arguments can be checked before the
// call.
func (c *Client) judge(t *mcp.Tool) Tool {
	out := Tool{Tool: probe.Tool{Name: t.Name, Title: t.Title, Description: t.Description}}
	if a := t.Annotations; a != nil {
		out.Annotated = true
		out.ReadOnly = a.ReadOnlyHint
		out.Destructive = !a.ReadOnlyHint
		if a.DestructiveHint != nil {
			out.Destructive = *a.DestructiveHint
		}
		out.Idempotent = a.IdempotentHint
		out.OpenWorld = a.OpenWorldHint == nil || *a.OpenWorldHint
		if out.Title == "" {
			out.Title = a.Title
		}
	} else {
		out.Destructive, out.OpenWorld = true, true
	}
	schemaErr := ""
	if b, err := json.Marshal(t.InputSchema); err != nil {
		schemaErr = err.Error()
	} else {
		out.InputSchema = b
		var js jsonschema.Schema
		if err := json.Unmarshal(b, &js); err != nil {
			schemaErr = err.Error()
		} else if rs, err := js.Resolve(nil); err != nil {
			schemaErr = err.Error()
		} else if (js.Type != "" && js.Type != "object") || (len(js.Types) > 0 && !slices.Contains(js.Types, "object")) {
			schemaErr = "its type is not \"object\""
		} else {
			out.schema = rs
		}
	}
	allowed := slices.Contains(c.cfg.Allow, t.Name)
	switch {
	case schemaErr != "":
		out.Why = "not callable: its input schema is invalid (" + oneLine(schemaErr) + ")"
	case out.ReadOnly && !out.Destructive:
		out.Callable, out.Why = true, "annotated read-only by the server"
	case allowed:
		out.Callable, out.AllowListed, out.Why = true, true, "named in the environment's allow-list ("+AllowListNote+")"
	case out.ReadOnly:
		out.Why = "not callable: annotated read-only but also destructive; add it to the allow-list to call it"
	case !out.Annotated:
		out.Why = "not callable: the server does not annotate it (readOnlyHint absent); add it to the allow-list to call it"
	default:
		out.Why = "not callable: the server does not annotate it read-only; add it to the allow-list to call it"
	}
	return out
}

// Fingerprint writes the tool list into h: each tool's name, annotations
// and input schema, in name order, so a changed or new tool changes it.
func (c *Client) Fingerprint(ctx context.Context, h hash.Hash) error {
	tools, err := c.Tools(ctx)
	if err != nil {
		return err
	}
	for _, t := range tools {
		for _, f := range []string{t.Name, strconv.FormatBool(t.ReadOnly), strconv.FormatBool(t.Destructive),
			strconv.FormatBool(t.Idempotent), strconv.FormatBool(t.OpenWorld), string(canonicalJSON(t.InputSchema))} {
			h.Write([]byte(strconv.Itoa(len(f))))
			h.Write([]byte{':'})
			h.Write([]byte(f))
		}
	}
	return nil
}

// canonicalJSON re-encodes b with object keys in order.
func canonicalJSON(b []byte) []byte {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return b
	}
	out, err := json.Marshal(v)
	if err != nil {
		return b
	}
	return out
}
