package formats

// Conversion of OpenAI chat-format runs (and memreview's own trajectory
// lines) into Trajectories. ReadTrajectories (format_traj.go) finds the JSON
// values in a file; trajReader turns each value into runs.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/memreview/memreview/review"
)

// messageKeys are the fields of a run object that may hold its messages, in
// the order they are looked for.
var messageKeys = []string{"messages", "traj", "trajectory", "history"}

// trajReader collects the trajectories of one input.
type trajReader struct {
	file string
	base string              // file base name for generated ids
	out  []review.Trajectory //
	at   []Place             // where each of out starts and the field its id came from
	seen map[string]int      // id → line it was first seen on
	runs int                 // runs seen so far (for generated ids)
	// scored is set by meta when the run being read has a reward, score or
	// success.
	scored bool
}

func newTrajReader(file string) *trajReader {
	return &trajReader{file: file, base: fileBase(file), seen: map[string]int{}}
}

// value turns one JSON value that starts on line into trajectories: an
// object (a memreview trajectory or an OpenAI run) or an array (one run's
// messages, or a list of runs). raw must be valid JSON.
func (tr *trajReader) value(raw []byte, line int) error {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) > 0 && raw[0] == '{':
		return tr.object(raw, line)
	case len(raw) > 0 && raw[0] == '[':
		elems, offs := rawArrayElems(raw)
		if len(elems) == 0 {
			return inputErr(tr.file, line, "", "empty array: no messages or runs")
		}
		if isMessage(elems[0]) {
			tr.runs++
			return tr.run(nil, nil, nil, line, "", elems, elemLines(raw, line, offs))
		}
		lc := lineCounter{data: raw}
		for i, e := range elems {
			if err := tr.value(e, line+lc.before(int64(offs[i]))); err != nil {
				return err
			}
		}
		return nil
	}
	return inputErr(tr.file, line, "", "want a JSON object or array (a trajectory, a run or a list of messages), got %.20s", raw)
}

// object handles a JSON object: a run holding its messages under one of
// messageKeys, or a memreview trajectory (with "steps").
func (tr *trajReader) object(raw []byte, line int) error {
	fields, offs := objectFields(raw)
	key := ""
	for _, k := range messageKeys {
		if v, ok := fields[k]; ok && string(v) != "null" {
			key = k
			break
		}
	}
	if key == "" {
		if _, ok := fields["steps"]; ok {
			return tr.memreview(raw, line)
		}
		if _, ok := fields["role"]; ok {
			return inputErr(tr.file, line, "", "a single message, not a run: put a run's messages in one JSON array or under \"messages\"")
		}
		return inputErr(tr.file, line, "", "not a trajectory: want memreview \"steps\" or OpenAI messages under \"messages\", \"traj\", \"trajectory\" or \"history\"")
	}
	tr.runs++
	msgs := fields[key]
	mline := line + linesBefore(raw, int64(offs[key]))
	if msgs[0] != '[' {
		return inputErr(tr.file, mline, key, "want an array of messages")
	}
	elems, eoffs := rawArrayElems(msgs)
	return tr.run(fields, offs, raw, line, key, elems, elemLines(msgs, mline, eoffs))
}

// elemLines gives the lines of array elements at offs in raw (which starts
// on line).
func elemLines(raw []byte, line int, offs []int) []int {
	lines := make([]int, len(offs))
	lc := lineCounter{data: raw}
	for i, o := range offs {
		lines[i] = line + lc.before(int64(o))
	}
	return lines
}

// memreview decodes a trajectory in memreview's own form (strictly).
func (tr *trajReader) memreview(raw []byte, line int) error {
	var t review.Trajectory
	if err := decodeLine(tr.file, line, raw, &t, true); err != nil {
		return err
	}
	if strings.TrimSpace(t.ID) == "" {
		return inputErr(tr.file, line, "id", "missing id")
	}
	if len(t.Steps) == 0 {
		return inputErr(tr.file, line, "steps", "no steps")
	}
	for i, s := range t.Steps {
		if strings.TrimSpace(s.Role) == "" {
			return inputErr(tr.file, line, fmt.Sprintf("steps[%d].role", i), "missing role")
		}
	}
	tr.scored = bytes.Contains(raw, []byte(`"outcome"`)) // a cheap look: the strict decode above has the shape right
	return tr.add(t, line, "id")
}

func (tr *trajReader) add(t review.Trajectory, line int, idField string) error {
	if err := review.CheckID(t.ID); err != nil {
		return inputErr(tr.file, line, idField, "%v", err)
	}
	if f, m := review.CheckIDList("retrieved", t.Retrieved); m != "" {
		return inputErr(tr.file, line, f, "%s", m)
	}
	switch t.Outcome.Kind {
	case "", review.OutcomeUnknown, review.OutcomeValue:
	default:
		return inputErr(tr.file, line, "outcome.kind", "unknown outcome kind %q (want unknown, value, or none for a reward)", t.Outcome.Kind)
	}
	if first, ok := tr.seen[t.ID]; ok {
		return inputErr(tr.file, line, idField, "duplicate trajectory id %q (first on line %d)", t.ID, first)
	}
	tr.seen[t.ID] = line
	tr.out = append(tr.out, t)
	tr.at = append(tr.at, Place{Line: line, Field: idField, Outcome: tr.scored})
	tr.scored = false
	return nil
}

// oaMessage is one OpenAI chat message; unknown fields are ignored.
type oaMessage struct {
	Role         string          `json:"role"`
	Content      json.RawMessage `json:"content"`
	Name         string          `json:"name"`
	ToolCallID   string          `json:"tool_call_id"`
	ToolCalls    []oaToolCall    `json:"tool_calls"`
	FunctionCall *oaFunction     `json:"function_call"` // legacy single call
}

type oaToolCall struct {
	ID       string     `json:"id"`
	Function oaFunction `json:"function"`
}

type oaFunction struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"` // a JSON string, or (leniently) an object
}

// run builds one trajectory from a run's fields (nil for a bare array of
// messages; raw is the run object, starting on line) and its messages
// (under key; elines[i] is the line message i starts on).
func (tr *trajReader) run(fields map[string]json.RawMessage, offs map[string]int, raw []byte, line int, key string, elems []json.RawMessage, elines []int) error {
	if len(elems) == 0 {
		return inputErr(tr.file, line, key, "no messages")
	}
	t := review.Trajectory{Steps: make([]review.Step, 0, len(elems))}
	type ref struct{ step, call int }
	var open []ref // tool calls still waiting for their result, oldest first
	firstUser := ""
	for i, e := range elems {
		at := fmt.Sprintf("%s[%d]", key, i)
		eline := elines[i]
		var m oaMessage
		if err := decodeAt(tr.file, eline, at, e, &m, false); err != nil {
			return err
		}
		if strings.TrimSpace(m.Role) == "" {
			return inputErr(tr.file, eline, at+".role", "missing role")
		}
		content, ok := chatContentText(m.Content)
		if !ok {
			return inputErr(tr.file, eline, at+".content", "want a string, an array of content parts or null")
		}
		st := review.Step{Role: m.Role, Content: content, ToolCallID: m.ToolCallID, Name: m.Name}
		calls := m.ToolCalls
		if m.FunctionCall != nil {
			calls = append(calls, oaToolCall{Function: *m.FunctionCall})
		}
		for j, c := range calls {
			args, ok := argumentsText(c.Function.Arguments)
			if !ok {
				return inputErr(tr.file, eline, fmt.Sprintf("%s.tool_calls[%d].function.arguments", at, j), "want a JSON string or object")
			}
			st.ToolCalls = append(st.ToolCalls, review.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: args})
			open = append(open, ref{len(t.Steps), j})
		}
		if m.Role == "tool" || m.Role == "function" {
			// The newest open call with this id (ids are sometimes reused
			// within a run), else, for id-less results, the newest open call
			// with this function name and no id.
			for k := len(open) - 1; k >= 0; k-- {
				tc := &t.Steps[open[k].step].ToolCalls[open[k].call]
				if m.ToolCallID != "" && tc.ID == m.ToolCallID || m.ToolCallID == "" && tc.ID == "" && tc.Name == m.Name {
					tc.Result = content
					open = append(open[:k], open[k+1:]...)
					break
				}
			}
		}
		if firstUser == "" && m.Role == "user" {
			firstUser = content
		}
		t.Steps = append(t.Steps, st)
	}
	t.Task = firstUser
	idField, err := tr.meta(&t, fields, offs, raw, line)
	if err != nil {
		return err
	}
	return tr.add(t, line, idField)
}

// meta fills a run's id, env, task and outcome from its fields and returns
// the field the id came from.
func (tr *trajReader) meta(t *review.Trajectory, fields map[string]json.RawMessage, offs map[string]int, raw []byte, line int) (string, error) {
	fline := func(k string) int { return line + linesBefore(raw, int64(offs[k])) }
	scalar := func(k string) (string, bool, error) {
		v, ok := fields[k]
		if !ok || string(v) == "null" {
			return "", false, nil
		}
		s, ok := scalarString(v)
		if !ok {
			return "", false, inputErr(tr.file, fline(k), k, "want a string or number")
		}
		return s, true, nil
	}
	idField := "id"
	id, ok, err := scalar("id")
	if err != nil {
		return "", err
	}
	if !ok || id == "" {
		task, hasTask, err := scalar("task_id")
		if err != nil {
			return "", err
		}
		trial, hasTrial, err := scalar("trial")
		if err != nil {
			return "", err
		}
		switch {
		case hasTask && hasTrial:
			id, idField = fmt.Sprintf("%s-task%s-trial%s", tr.base, task, trial), "task_id"
		case hasTask:
			id, idField = fmt.Sprintf("%s-task%s", tr.base, task), "task_id"
		default:
			id = fmt.Sprintf("%s-%d", tr.base, tr.runs)
		}
	}
	t.ID = id
	if env, ok := fields["env"]; ok {
		if s, ok := scalarString(env); ok {
			t.Env = s
		}
	}
	for _, p := range [][]string{{"task"}, {"instruction"}, {"task", "instruction"}, {"info", "task", "instruction"}} {
		if s, ok := lookupString(fields, p); ok && strings.TrimSpace(s) != "" {
			t.Task = s
			break
		}
	}
	num := func(k string) (float64, bool, error) {
		v, ok := fields[k]
		if !ok || string(v) == "null" {
			return 0, false, nil
		}
		var f float64
		var b bool
		switch {
		case json.Unmarshal(v, &f) == nil:
			return f, true, nil
		case json.Unmarshal(v, &b) == nil:
			if b {
				return 1, true, nil
			}
			return 0, true, nil
		}
		return 0, false, inputErr(tr.file, fline(k), k, "want a number or boolean")
	}
	reward, hasReward, err := num("reward")
	if err != nil {
		return "", err
	}
	score, hasScore, err := num("score")
	if err != nil {
		return "", err
	}
	success, hasSuccess, err := num("success")
	if err != nil {
		return "", err
	}
	switch {
	case hasReward:
		t.Outcome.Reward = reward
	case hasScore:
		t.Outcome.Reward = score
	case hasSuccess:
		t.Outcome.Reward = success
	}
	t.Outcome.Passed = t.Outcome.Reward >= 1 || hasSuccess && success >= 1
	tr.scored = hasReward || hasScore || hasSuccess
	return idField, nil
}

// lookupString follows path through nested objects to a string.
func lookupString(fields map[string]json.RawMessage, path []string) (string, bool) {
	for i, k := range path {
		v, ok := fields[k]
		if !ok {
			return "", false
		}
		if i == len(path)-1 {
			var s string
			if json.Unmarshal(v, &s) != nil {
				return "", false
			}
			return s, true
		}
		fields = nil
		if json.Unmarshal(v, &fields) != nil {
			return "", false
		}
	}
	return "", false
}

// scalarString gives a JSON string's value or a JSON number's text.
func scalarString(v json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s, true
	}
	var n json.Number
	if json.Unmarshal(v, &n) == nil {
		return n.String(), true
	}
	return "", false
}

// contentText flattens message content: a string, null, or an array of
// content parts (strings or {"type":"text","text":…}; other parts skipped).
func chatContentText(v json.RawMessage) (string, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return "", true
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s, true
	}
	var parts []json.RawMessage
	if json.Unmarshal(v, &parts) != nil {
		return "", false
	}
	var texts []string
	for _, p := range parts {
		var ps string
		var obj struct {
			Text *string `json:"text"`
		}
		switch {
		case json.Unmarshal(p, &ps) == nil:
			texts = append(texts, ps)
		case json.Unmarshal(p, &obj) == nil && obj.Text != nil:
			texts = append(texts, *obj.Text)
		}
	}
	return strings.Join(texts, "\n"), true
}

// argumentsText gives tool-call arguments as JSON text: a JSON string's
// value, or the compacted object or array itself.
func argumentsText(v json.RawMessage) (string, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return "", true
	}
	switch v[0] {
	case '"':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", false
		}
		return s, true
	case '{', '[':
		var b bytes.Buffer
		if json.Compact(&b, v) != nil {
			return "", false
		}
		return b.String(), true
	}
	return "", false
}
