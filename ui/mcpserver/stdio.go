package mcpserver

// Stdio with a guard in front: the SDK's stdio transport ends the session
// on any line it cannot decode — not JSON, an id that is an object, array
// or boolean, a method that is not a string, a batch, a message nested
// deeper than its decoder allows — and it answers an id of 1.5 as 1.
// Guarded checks every line first and answers one that is not a JSON-RPC
// 2.0 message MCP can serve with a JSON-RPC error (-32700 parse error,
// -32600 invalid request), echoing its id when it has a valid one, and
// goes on reading: one bad line from a client costs that line only, as a
// bad POST costs one request over HTTP. A good line reaches the SDK
// rewritten to the fields JSON-RPC defines (duplicate and unknown keys
// gone), so the SDK decodes exactly what the guard checked.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxStdioLine caps one stdio message, as the SDK's stdio transport does.
const MaxStdioLine = mcp.DefaultMaxLineLength

// MaxStdioDepth caps how deeply a stdio message may nest objects and
// arrays: the SDK's decoder refuses more than 1,000 levels (and ends the
// session), so the guard refuses them first.
const MaxStdioDepth = 1000

// StdioTransport serves one session over in and out (os.Stdin and
// os.Stdout for 'memreview serve'), answering malformed lines with a
// JSON-RPC error instead of ending the session.
func StdioTransport(in io.Reader, out io.Writer) mcp.Transport {
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	go guard(in, pw, w)
	return &mcp.IOTransport{Reader: pr, Writer: w, MaxLineLength: -1} // guard enforces MaxStdioLine
}

// lockedWriter writes whole messages, one at a time.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// guard copies the JSON-RPC lines of in to pass and answers the others on
// reply, until in ends.
func guard(in io.Reader, pass *io.PipeWriter, reply io.Writer) {
	br := bufio.NewReaderSize(in, 64<<10)
	var line []byte
	tooLong := func() {
		rpcError(reply, nil, -32600, fmt.Sprintf("Invalid Request: message longer than %d MiB", MaxStdioLine>>20))
	}
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(line) <= MaxStdioLine {
				continue
			}
			tooLong() // answer once, then drop the rest of the line
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			line = line[:0]
			if err != nil {
				break
			}
			continue
		}
		if t := bytes.TrimSpace(line); len(t) > MaxStdioLine {
			tooLong()
		} else if len(t) > 0 {
			if msg, bad := checkLine(t); bad != nil {
				rpcError(reply, bad.id, bad.code, bad.msg)
			} else if _, werr := pass.Write(append(msg, '\n')); werr != nil {
				return
			}
		}
		line = line[:0]
		if err != nil {
			break
		}
	}
	pass.Close()
}

// badLine is why a line is refused, and the id to answer it with (nil:
// null, when the line has no valid id).
type badLine struct {
	code int
	msg  string
	id   json.RawMessage
}

func invalid(id json.RawMessage, format string, args ...any) *badLine {
	return &badLine{code: -32600, msg: "Invalid Request: " + fmt.Sprintf(format, args...), id: id}
}

// integerID is an id the SDK echoes exactly: an integer that a float64
// (how it decodes ids) holds without loss.
var integerID = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,15})$`)

// maxExactID is 2^53: larger integers lose digits in a float64.
const maxExactID = 1 << 53

// checkLine checks one line and returns the message to pass to the SDK:
// a JSON-RPC 2.0 request, notification or response whose id (if any) is
// a string or an exact integer, whose method (if any) is a string and
// whose params (if any) are an object or array, holding only the
// JSON-RPC fields.
func checkLine(line []byte) ([]byte, *badLine) {
	if !json.Valid(line) {
		return nil, &badLine{code: -32700, msg: "Parse error: the line is not valid JSON"}
	}
	if line[0] == '[' {
		return nil, invalid(nil, "batches are not supported (MCP since 2025-06-18 sends one message per line)")
	}
	var fields map[string]json.RawMessage
	if line[0] != '{' || json.Unmarshal(line, &fields) != nil {
		return nil, invalid(nil, "a message must be a JSON object")
	}
	id, hasID := fields["id"]
	if hasID && string(id) == "null" {
		id, hasID = nil, false
	}
	if hasID {
		if bad := checkID(id); bad != "" {
			// Echo the id as sent only when it is a plain value: an object
			// or array could be anything, so it is answered as null.
			echo := id
			if id[0] == '{' || id[0] == '[' {
				echo = nil
			}
			return nil, invalid(echo, "%s", bad)
		}
	}
	if depth(line) > MaxStdioDepth {
		return nil, invalid(id, "the message nests objects and arrays more than %d deep", MaxStdioDepth)
	}
	var version string
	if json.Unmarshal(fields["jsonrpc"], &version) != nil || version != "2.0" {
		return nil, invalid(id, `"jsonrpc" must be "2.0"`)
	}
	out := map[string]json.RawMessage{"jsonrpc": fields["jsonrpc"]}
	if hasID {
		out["id"] = id
	}
	method, hasMethod := fields["method"]
	if hasMethod {
		var name string
		if method[0] != '"' || json.Unmarshal(method, &name) != nil {
			return nil, invalid(id, `"method" must be a string`)
		}
		out["method"] = method
		if p, ok := fields["params"]; ok && string(p) != "null" {
			if p[0] != '{' && p[0] != '[' {
				return nil, invalid(id, `"params" must be an object or an array`)
			}
			out["params"] = p
		}
	} else {
		// A response to a request the server sent.
		if !hasID {
			return nil, invalid(nil, `a message needs a "method" (a request or notification) or an "id" (a response)`)
		}
		r, hasResult := fields["result"]
		e, hasError := fields["error"]
		if hasResult == hasError {
			return nil, invalid(id, `a response holds one of "result" and "error"`)
		}
		if hasError {
			var we struct {
				Code    int64           `json:"code"`
				Message string          `json:"message"`
				Data    json.RawMessage `json:"data"`
			}
			if e[0] != '{' || json.Unmarshal(e, &we) != nil {
				return nil, invalid(id, `"error" must be an object with an integer "code" and a string "message"`)
			}
			out["error"] = e
		} else {
			out["result"] = r
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, invalid(id, "%v", err)
	}
	return b, nil
}

// checkID says what is wrong with an id that is not null ("" when it is a
// string or an integer the SDK echoes exactly).
func checkID(id json.RawMessage) string {
	switch id[0] {
	case '"':
		return ""
	case '{', '[', 't', 'f':
		return `"id" must be a string or an integer`
	}
	if !integerID.Match(id) {
		return `"id" must be a string or an integer (not a fraction or an exponent)`
	}
	var n int64
	if json.Unmarshal(id, &n) != nil || n > maxExactID || n < -maxExactID {
		return fmt.Sprintf(`"id" must be a string or an integer between -2^53 and 2^53 (%s cannot be echoed exactly)`, id)
	}
	return ""
}

// depth is how deeply data (valid JSON) nests objects and arrays.
func depth(data []byte) int {
	d, most := 0, 0
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			most = max(most, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return most
}

func rpcError(w io.Writer, id json.RawMessage, code int, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	w.Write(append(b, '\n'))
}
