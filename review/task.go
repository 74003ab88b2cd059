package review

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Task is one task of an evaluation task set (docs/FORMATS.md, "Task
// sets"): what a task agent is asked to do in an environment, and how its
// answer is graded. memreview eval replays a task set under conditions
// (no memory, the bank now, the bank as it stood at a decision).
type Task struct {
	ID      string  `json:"id"`
	Env     string  `json:"env"`
	Text    string  `json:"text"`
	Grading Grading `json:"grading"`
	// Tags and TaskFamily scope retrieval as a record's scope does; Order
	// places the task in the sequence (the drift point of a task set is an
	// order), ties and zeros in file order.
	Tags       []string `json:"tags,omitempty"`
	TaskFamily string   `json:"task_family,omitempty"`
	Order      int      `json:"order,omitempty"`
}

// Grading says how a task's answer is graded: against Expect (an answer
// written down), against the result of Probe (a read-only probe on the
// task's environment, run when the task is graded), or both, in which case
// the answer must match both. Numbers match within Tolerance (absolute);
// text matches ignoring case and runs of white space.
type Grading struct {
	Expect    Answer  `json:"expect,omitempty"`
	Tolerance float64 `json:"tolerance,omitempty"`
	Probe     string  `json:"probe,omitempty"`
}

// Answer is an expected answer: JSON text, or a JSON number kept as it was
// written ("267", "23.5").
type Answer string

// UnmarshalJSON reads a JSON string or number.
func (a *Answer) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*a = Answer(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		// A type error, so that the decoder names the field.
		return &json.UnmarshalTypeError{Value: jsonKind(b), Type: reflect.TypeOf("")}
	}
	*a = Answer(n.String())
	return nil
}

// CheckTask says what is wrong with a task, as a field and a message ("",
// "" when nothing is): the id (CheckID), the env name (CheckEnvName), an
// empty text, no grading at all, a negative or non-finite tolerance, or a
// text field over MaxTextBytes.
func CheckTask(t *Task) (field, msg string) {
	if err := CheckID(t.ID); err != nil {
		return "id", err.Error()
	}
	if err := CheckEnvName(t.Env); err != nil {
		return "env", err.Error()
	}
	switch {
	case strings.TrimSpace(t.Text) == "":
		return "text", "missing: say what the task agent is to do"
	case len(t.Text) > MaxTextBytes:
		return "text", fmt.Sprintf("%d bytes, over the %d a text may hold", len(t.Text), MaxTextBytes)
	case strings.TrimSpace(string(t.Grading.Expect)) == "" && strings.TrimSpace(t.Grading.Probe) == "":
		return "grading", "give an expected answer (expect), a probe whose result the answer must match (probe), or both"
	case len(t.Grading.Probe) > MaxTextBytes:
		return "grading.probe", fmt.Sprintf("%d bytes, over the %d a probe may hold", len(t.Grading.Probe), MaxTextBytes)
	case len(t.Grading.Expect) > MaxTextBytes:
		return "grading.expect", fmt.Sprintf("%d bytes, over the %d an answer may hold", len(t.Grading.Expect), MaxTextBytes)
	case !(t.Grading.Tolerance >= 0) || t.Grading.Tolerance > 1e300:
		return "grading.tolerance", fmt.Sprintf("%v: a tolerance is a number of 0 or more", t.Grading.Tolerance)
	}
	for i, tag := range t.Tags {
		if strings.TrimSpace(tag) == "" {
			return fmt.Sprintf("tags[%d]", i), "empty tag"
		}
	}
	return "", ""
}

// jsonKind names the kind of JSON value b starts, for a type error.
func jsonKind(b []byte) string {
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '[':
		return "array"
	case '{':
		return "object"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "value"
}
