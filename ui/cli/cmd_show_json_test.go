package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/memreview/memreview/review/printable"
)

// JSON output is exact JSON and never carries a raw control character to
// the terminal (issue 23 item 24: show printed \x9b inside JSON): unsafe
// runes are \u escapes, and the value reads back as stored.
func TestJSONOutputStaysJSONWithoutControlBytes(t *testing.T) {
	t.Parallel()
	bank := newCLIBank(t)
	const lemma = "CSI \u009b31m, ESC \u001b[2J, bidi \u202eevil\u202c, DEL \u007f end"
	prop, _ := json.Marshal(map[string]any{"id": "prop_h1", "op": "create", "rationale": "r",
		"record": map[string]any{"lemma": lemma, "category": "fact", "confidence": 0.5}})
	must(t, mr(t, string(prop)+"\n", "--bank", bank, "import", "proposals", "-"))
	for _, args := range [][]string{{"show", "prop_h1"}, {"queue", "--json"}} {
		out := must(t, mr(t, "", append([]string{"--bank", bank}, args...)...)).stdout
		for i := 0; i < len(out); {
			r, n := utf8.DecodeRuneInString(out[i:])
			if r != '\n' && r != '\t' && printable.Unsafe(r) {
				t.Fatalf("%v printed %q raw", args, r)
			}
			i += n
		}
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%v is not JSON: %v\n%s", args, err, out)
		}
		if b, _ := json.Marshal(v); !strings.Contains(string(b), strings.TrimSuffix(strings.TrimPrefix(string(mustJSON(lemma)), `"`), `"`)) {
			t.Fatalf("%v lost the lemma: %s", args, b)
		}
	}
}

func mustJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}
