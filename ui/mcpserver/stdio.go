package mcpserver

// Stdio with a guard in front: the SDK's stdio transport ends the session
// on a line that is not a JSON-RPC message. Guarded answers such a line
// with a JSON-RPC error (-32700 parse error, -32600 invalid request) and
// goes on reading, so one bad line from a client costs that line only.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxStdioLine caps one stdio message, as the SDK's stdio transport does.
const MaxStdioLine = mcp.DefaultMaxLineLength

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
			if code, msg, id := check(t); code != 0 {
				rpcError(reply, id, code, msg)
			} else if _, werr := pass.Write(append(t, '\n')); werr != nil {
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

// check says what is wrong with one line: 0 when it is a JSON-RPC 2.0
// message or batch.
func check(line []byte) (code int, msg string, id json.RawMessage) {
	if !json.Valid(line) {
		return -32700, "Parse error: the line is not valid JSON", nil
	}
	var one struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
	}
	if line[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(line, &batch) != nil || len(batch) == 0 {
			return -32600, "Invalid Request: an empty or malformed batch", nil
		}
		for _, m := range batch {
			one.JSONRPC = ""
			if json.Unmarshal(m, &one) != nil || one.JSONRPC != "2.0" {
				return -32600, `Invalid Request: every message of a batch must be a JSON-RPC 2.0 object`, nil
			}
		}
		return 0, "", nil
	}
	if json.Unmarshal(line, &one) != nil {
		return -32600, "Invalid Request: a message must be a JSON object", nil
	}
	if one.JSONRPC != "2.0" {
		return -32600, `Invalid Request: "jsonrpc" must be "2.0"`, one.ID
	}
	return 0, "", nil
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
