package formats

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
)

// Issue 23 item 11: runs with no outcome read as unknown, runs whose
// outcome is not a reward carry it as a value, and neither reads as a
// fail 0.00.
func TestOutcomesAreTruthful(t *testing.T) {
	for _, c := range []struct {
		name, file, data string
		want             review.Outcome // Notes not compared
		outcomes         int            // the report's count
	}{
		{"openai reward", "r.json", `{"messages":[{"role":"user","content":"hi"}],"reward":0}`,
			review.Outcome{}, 1},
		{"openai none", "r.json", `{"messages":[{"role":"user","content":"hi"}]}`,
			review.Outcome{Kind: review.OutcomeUnknown}, 0},
		{"memreview kind", "r.jsonl", `{"id":"r1","steps":[{"role":"user","content":"hi"}],"outcome":{"passed":false,"reward":0,"kind":"value","value":"submitted"}}`,
			review.Outcome{Kind: review.OutcomeValue, Value: "submitted"}, 1},
		{"memreview none", "r.jsonl", `{"id":"r1","steps":[{"role":"user","content":"hi"}]}`,
			review.Outcome{Kind: review.OutcomeUnknown}, 0},
		{"otel", "o.json", `{"gen_ai.input.messages":"[{\"role\":\"user\",\"content\":\"hi\"}]"}`,
			review.Outcome{Kind: review.OutcomeUnknown}, 0},
		{"langfuse none", "l.json", `{"trace":{"id":"t1"},"observations":[{"id":"g","type":"GENERATION","input":"hi","output":"yo"}]}`,
			review.Outcome{Kind: review.OutcomeUnknown}, 0},
		{"langfuse scores", "l.json", `{"trace":{"id":"t1","scores":[{"name":"correctness","value":0,"comment":"wrong city"},{"name":"tone","dataType":"CATEGORICAL","value":1,"stringValue":"polite"}]},"observations":[{"id":"g","type":"GENERATION","input":"hi","output":"yo"}]}`,
			review.Outcome{Kind: review.OutcomeValue, Value: "correctness: 0; tone: polite"}, 1},
		{"swe-agent no info", "s.traj", `{"environment":"e","history":[{"role":"user","content":"fix it"}]}`,
			review.Outcome{Kind: review.OutcomeUnknown}, 0},
		{"swe-agent exit", "s.traj", `{"info":{"exit_status":"exit_cost"},"history":[{"role":"user","content":"fix it"}]}`,
			review.Outcome{Kind: review.OutcomeValue, Value: "exit_cost"}, 1},
		{"inspect C", "i.json", `{"eval":{"model":"m"},"samples":[{"id":1,"epoch":1,"messages":[{"role":"user","content":"q"}],"scores":{"match":{"value":"C"}}}]}`,
			review.Outcome{Kind: review.OutcomeValue, Value: "match: C", Passed: true, Reward: 1}, 1},
		{"inspect number", "i.json", `{"eval":{"model":"m"},"samples":[{"id":1,"epoch":1,"messages":[{"role":"user","content":"q"}],"scores":{"f1":{"value":0.75}}}]}`,
			review.Outcome{Kind: review.OutcomeValue, Value: "f1: 0.75", Reward: 0.75}, 1},
		{"inspect none", "i.json", `{"eval":{"model":"m"},"samples":[{"id":1,"epoch":1,"messages":[{"role":"user","content":"q"}]}]}`,
			review.Outcome{Kind: review.OutcomeUnknown}, 0},
		{"openhands state", "h.json", `[{"id":0,"source":"user","action":"message","args":{"content":"go"}},{"id":1,"source":"agent","action":"finish","args":{"task_completed":"partial"}},{"id":2,"source":"environment","observation":"agent_state_changed","extras":{"agent_state":"finished"}}]`,
			review.Outcome{Kind: review.OutcomeValue, Value: "finished (task_completed: partial)"}, 1},
		{"openhands error", "h.json", `[{"id":0,"source":"user","action":"message","args":{"content":"go"}},{"id":1,"source":"environment","observation":"agent_state_changed","extras":{"agent_state":"error"}}]`,
			review.Outcome{Kind: review.OutcomeValue, Value: "error"}, 1},
		{"openhands none", "h.json", `[{"id":0,"source":"user","action":"message","args":{"content":"go"}}]`,
			review.Outcome{Kind: review.OutcomeUnknown}, 0},
		{"atif", "a.json", `{"schema_version":"ATIF-v1.2","session_id":"s1","steps":[{"step_id":1,"source":"user","message":"hi"}],"final_metrics":{"total_steps":1}}`,
			review.Outcome{Kind: review.OutcomeUnknown}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts, rep, err := ReadTrajectories(NewInput(c.file, []byte(c.data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			got := ts[0].Outcome
			got.Notes = ""
			if got != c.want || rep.Outcomes != c.outcomes {
				t.Errorf("outcome %+v (report counts %d), want %+v (%d)", got, rep.Outcomes, c.want, c.outcomes)
			}
			if got.Kind != "" && got.Rewarded() {
				t.Errorf("%+v reads as a reward", got)
			}
		})
	}
}

func TestOutcomeKindIsChecked(t *testing.T) {
	data := []byte("{\"id\":\"r1\",\"steps\":[{\"role\":\"user\"}]}\n{\"id\":\"r2\",\"steps\":[{\"role\":\"user\"}],\"outcome\":{\"passed\":true,\"reward\":1,\"kind\":\"vibes\"}}")
	const want = `r.jsonl:2: field "outcome.kind": unknown outcome kind "vibes" (want unknown, value, or none for a reward)`
	_, _, err := ReadTrajectories(NewInput("r.jsonl", data), nil)
	if err == nil || err.Error() != want {
		t.Fatalf("ReadTrajectories: err = %v", err)
	}
	// The chat reader checks it too, as every adapter does.
	if ts, err := ReadChatTrajectories(bytes.NewReader(data), "r.jsonl"); err == nil || err.Error() != want {
		t.Fatalf("ReadChatTrajectories: %d runs, err = %v", len(ts), err)
	}
}

// The new fields are omitted for a reward, so a reward outcome encodes as
// before, and an outcome written before them reads as a reward.
func TestOutcomeJSONIsBackwardCompatible(t *testing.T) {
	b, _ := json.Marshal(review.Outcome{Passed: true, Reward: 1, Notes: "n"})
	if string(b) != `{"passed":true,"reward":1,"notes":"n"}` {
		t.Errorf("a reward encodes as %s", b)
	}
	var o review.Outcome
	if err := json.Unmarshal([]byte(`{"passed":false,"reward":0.5}`), &o); err != nil || !o.Rewarded() || o.Reward != 0.5 {
		t.Errorf("an old outcome reads as %+v (%v)", o, err)
	}
	b, _ = json.Marshal(review.Outcome{Kind: review.OutcomeUnknown})
	if !strings.Contains(string(b), `"kind":"unknown"`) || strings.Contains(string(b), `"value"`) {
		t.Errorf("unknown encodes as %s", b)
	}
}
