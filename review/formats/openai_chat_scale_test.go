package formats

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/memreview/memreview/sample/testenv"
)

// Issue 11 item 12: a run whose 100,000 messages are one JSON array on one
// line must be placed on lines without recounting from the start per
// element. lineBytesScanned counts the bytes line counting looked at: the
// quadratic reader scanned about n²/2 message lengths (terabytes of counting
// here), the linear one a small multiple of the file. Outside
// MEMREVIEW_CI=1 the run has 10,000 messages.
func TestOneLineArrayLinesAreCountedOnce(t *testing.T) {
	n := 10_000 // a quadratic count scans thousands of times the file already
	if testenv.CI() {
		n = 100_000
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		if i%2 == 0 {
			fmt.Fprintf(&b, `{"role":"assistant","content":"m%d","tool_calls":[{"id":"c%d","function":{"name":"f","arguments":"{}"}}]}`, i, i)
		} else {
			fmt.Fprintf(&b, `{"role":"tool","tool_call_id":"c%d","content":"r%d"}`, i-1, i)
		}
	}
	b.WriteByte(']')
	data := b.Bytes()
	before := lineBytesScanned
	ts, err := ReadChatTrajectories(bytes.NewReader(data), "one-line.json")
	if err != nil {
		t.Fatal(err)
	}
	scanned := lineBytesScanned - before
	if len(ts) != 1 || len(ts[0].Steps) != n {
		t.Fatalf("got %d runs, want 1 run of %d steps", len(ts), n)
	}
	if got := ts[0].Steps[n-2].ToolCalls[0].Result; got != fmt.Sprintf("r%d", n-1) {
		t.Fatalf("last call's result = %q", got)
	}
	if limit := 4 * int64(len(data)); scanned > limit {
		t.Fatalf("line counting scanned %d bytes for a %d-byte file (more than %d): quadratic", scanned, len(data), limit)
	}

	// An error deep in the array still names its line and field.
	last := fmt.Sprintf(`"tool_call_id":"c%d"`, n-2)
	bad := bytes.Replace(data, []byte(`"role":"tool",`+last), []byte(`"role":7,`+last), 1)
	_, err = ReadChatTrajectories(bytes.NewReader(bad), "one-line.json")
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf(`one-line.json:1: field "[%d].role"`, n-1)) {
		t.Fatalf("error = %v", err)
	}
}

// BenchmarkOneLineArray reads one run of 100,000 messages written as a
// one-line JSON array (issue 11 item 12).
func BenchmarkOneLineArray(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i := 0; i < 100_000; i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `{"role":"user","content":"message %d"}`, i)
	}
	buf.WriteByte(']')
	b.SetBytes(int64(buf.Len()))
	for i := 0; i < b.N; i++ {
		if _, err := ReadChatTrajectories(bytes.NewReader(buf.Bytes()), "one-line.json"); err != nil {
			b.Fatal(err)
		}
	}
}
