package printable

import (
	"encoding/json"
	"testing"
)

// JSON keeps a value's JSON valid and equal while no unsafe rune stays
// raw (issue 23 item 24: show printed \x9b inside JSON).
func TestJSONEscapesUnsafeRunesTheJSONWay(t *testing.T) {
	v := map[string]any{"lemma": hostile, "n": 1, "list": []string{"\u009b", "ok"}}
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got := JSON(raw)
	if bad := unsafeBytes(string(got)); len(bad) > 0 {
		t.Fatalf("JSON left %q raw in %s", bad, got)
	}
	var back map[string]any
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatalf("not valid JSON: %v\n%s", err, got)
	}
	var want map[string]any
	json.Unmarshal(raw, &want)
	if bw, _ := json.Marshal(back); string(bw) != string(mustMarshal(t, want)) {
		t.Fatalf("the value changed:\n%s\n%s", bw, mustMarshal(t, want))
	}
	if s := []byte(`{"a": "plain ü"}`); string(JSON(s)) != string(s) {
		t.Fatal("safe JSON changed")
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
