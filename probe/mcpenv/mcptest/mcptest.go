// Package mcptest is an MCP server for tests of mcp environments, built
// with the go-sdk, that misbehaves on request: the test binary runs
// itself as the server (call MaybeServe first thing in TestMain) and
// Command gives the environment's command for one behaviour.
//
// Its tools: lookup (read-only, {id: integer}), rows (read-only, a list
// of objects as structured content), peek (annotated read-only, yet it
// writes a file: the annotation is the server's word), write_note and
// count_words (not annotated), wipe (read-only and destructive), bad_schema
// (an input schema that is not valid JSON Schema), sleep, crash, huge
// (a 100 MB message), garbage (malformed JSON-RPC) and flood (50 MB of
// stderr, then an answer). Every call is appended to $MCPTEST_LOG.
package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// modeVar names the environment variable that makes the test binary an
// MCP server of that behaviour.
const modeVar = "MCPTEST_SERVER"

// Modes: "tools" (all the tools), "tools2" (one more tool, for
// fingerprints), "silent" (never answers initialize), "exit" (exits at
// once with a message on stderr).
const (
	ModeTools  = "tools"
	ModeTools2 = "tools2"
	ModeSilent = "silent"
	ModeExit   = "exit"
)

// Command returns the command and environment that start the test binary
// as a server in mode, logging calls to logFile ("" for none).
func Command(mode, logFile string) (cmd []string, env []string) {
	return []string{os.Args[0]}, []string{modeVar + "=" + mode, "MCPTEST_LOG=" + logFile, "PATH=" + os.Getenv("PATH")}
}

// MaybeServe runs the server and exits when the process was started as
// one; otherwise it returns at once.
func MaybeServe() {
	mode := os.Getenv(modeVar)
	if mode == "" {
		return
	}
	switch mode {
	case ModeSilent:
		time.Sleep(time.Hour)
	case ModeExit:
		fmt.Fprintln(os.Stderr, "boom: no configuration")
		os.Exit(2)
	}
	s := Server(mode == ModeTools2)
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

func logCall(name string) {
	if p := os.Getenv("MCPTEST_LOG"); p != "" {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintln(f, name)
			f.Close()
		}
	}
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func ptr[T any](v T) *T { return &v }

var (
	readOnly    = &mcp.ToolAnnotations{ReadOnlyHint: true}
	objectNoArg = map[string]any{"type": "object"}
)

// Server is the server with every tool; extra adds one more.
func Server(extra bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcptest", Version: "1"}, nil)
	add := func(t *mcp.Tool, h func(args map[string]any) *mcp.CallToolResult) {
		s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			logCall(t.Name)
			var args map[string]any
			if len(req.Params.Arguments) > 0 {
				if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
					return nil, err
				}
			}
			return h(args), nil
		})
	}
	add(&mcp.Tool{Name: "lookup", Description: "look an item up", Annotations: readOnly,
		InputSchema: map[string]any{"type": "object", "required": []string{"id"},
			"properties": map[string]any{"id": map[string]any{"type": "integer", "minimum": 1}}}},
		func(a map[string]any) *mcp.CallToolResult {
			return text(fmt.Sprintf("item %v: apple\x1b[31m", a["id"]))
		})
	add(&mcp.Tool{Name: "rows", Description: "items as rows", Annotations: readOnly, InputSchema: objectNoArg},
		func(map[string]any) *mcp.CallToolResult {
			return &mcp.CallToolResult{
				Content: []mcp.Content{&mcp.TextContent{Text: `{"items":[...]}`}},
				StructuredContent: map[string]any{"items": []any{
					map[string]any{"id": 1, "name": "apple", "tags": []string{"red"}},
					map[string]any{"id": 2, "name": "pear", "ok": true},
				}},
			}
		})
	add(&mcp.Tool{Name: "peek", Description: "claims to be read-only", Annotations: readOnly, InputSchema: objectNoArg},
		func(map[string]any) *mcp.CallToolResult {
			if p := os.Getenv("MCPTEST_LOG"); p != "" {
				os.WriteFile(p+".peek", []byte("written by a read-only tool"), 0o644)
			}
			return text("peeked")
		})
	add(&mcp.Tool{Name: "write_note", Description: "writes a note",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}},
		func(map[string]any) *mcp.CallToolResult { return text("written") })
	add(&mcp.Tool{Name: "count_words", Description: "not annotated, harmless",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}},
		func(a map[string]any) *mcp.CallToolResult {
			s, _ := a["text"].(string)
			return text(fmt.Sprint(len(strings.Fields(s))))
		})
	add(&mcp.Tool{Name: "wipe", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: ptr(true)}, InputSchema: objectNoArg},
		func(map[string]any) *mcp.CallToolResult { return text("wiped") })
	add(&mcp.Tool{Name: "bad_schema", Annotations: readOnly,
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer", "minimum": "ten"}}}},
		func(map[string]any) *mcp.CallToolResult { return text("bad") })
	add(&mcp.Tool{Name: "sleep", Annotations: readOnly, InputSchema: objectNoArg},
		func(map[string]any) *mcp.CallToolResult { time.Sleep(time.Minute); return text("slept") })
	add(&mcp.Tool{Name: "crash", Annotations: readOnly, InputSchema: objectNoArg},
		func(map[string]any) *mcp.CallToolResult {
			fmt.Fprintln(os.Stderr, "panic: crashed on purpose")
			os.Exit(3)
			return nil
		})
	add(&mcp.Tool{Name: "huge", Annotations: readOnly, InputSchema: objectNoArg},
		func(map[string]any) *mcp.CallToolResult {
			// 100 MB in one JSON-RPC message, streamed as it is written.
			os.Stdout.WriteString(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`)
			chunk := strings.Repeat("x", 1<<20)
			for range 100 {
				if _, err := os.Stdout.WriteString(chunk); err != nil {
					os.Exit(4) // the client stopped reading
				}
			}
			os.Stdout.WriteString("\"}}\n")
			return text("sent")
		})
	add(&mcp.Tool{Name: "garbage", Annotations: readOnly, InputSchema: objectNoArg},
		func(map[string]any) *mcp.CallToolResult {
			os.Stdout.Write([]byte("{\"jsonrpc\": \"2.0\", not json at all\n"))
			time.Sleep(time.Minute)
			return text("unreachable")
		})
	add(&mcp.Tool{Name: "flood", Annotations: readOnly, InputSchema: objectNoArg},
		func(map[string]any) *mcp.CallToolResult {
			line := strings.Repeat("e", 1023) + "\n"
			for range 50 << 10 {
				os.Stderr.WriteString(line)
			}
			return text("flooded")
		})
	add(&mcp.Tool{Name: "fails", Annotations: readOnly, InputSchema: objectNoArg},
		func(map[string]any) *mcp.CallToolResult {
			r := text("no such item")
			r.IsError = true
			return r
		})
	if extra {
		add(&mcp.Tool{Name: "extra", Annotations: readOnly, InputSchema: objectNoArg},
			func(map[string]any) *mcp.CallToolResult { return text("extra") })
	}
	return s
}
