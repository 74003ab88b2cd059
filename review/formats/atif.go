package formats

// ATIF, Harbor's agent trajectory interchange format: {schema_version,
// session_id, agent{name, version, model_name}, steps[{step_id, timestamp,
// source, message, reasoning_content, model_name, tool_calls[{tool_call_id,
// function_name, arguments}], observation{results[{source_call_id,
// content}]}}], final_metrics}. One memreview step per ATIF step, so step
// numbers match step_id order; results are linked into their calls.

import (
	"errors"
	"fmt"

	"github.com/memreview/memreview/review"
)

func init() {
	register(&Format{Name: "atif", Kind: Trajectories,
		About: "ATIF (Harbor agent trajectory interchange): one step per ATIF step, tool calls with their observation results",
		fits:  fitsATIF, trajectories: readATIF})
}

func fitsATIF(in *Input) error {
	sh := in.getShape()
	if (sh.kind == "object" || sh.kind == "lines" || sh.kind == "array") && sh.keys["schema_version"] && sh.keys["steps"] {
		return nil
	}
	return errors.New("no schema_version with steps")
}

func readATIF(in *Input, rep *Report) ([]review.Trajectory, error) {
	var out []review.Trajectory
	one := func(base int64, raw rawValue, prefix string) error {
		o, ok := object(raw)
		if !ok {
			return in.errAt(base, raw, prefix, "want an ATIF trajectory object")
		}
		steps, ok := array(o["steps"])
		if !ok || len(steps) == 0 {
			return in.errAt(base, raw, joinPath(prefix, "steps"), "want a non-empty array of steps")
		}
		agent, _ := object(o["agent"])
		r := newRun(rep)
		r.t.ID = firstNonEmpty(str(o["session_id"]), fileID(fileBaseName(in.File), ""))
		r.t.Model = str(agent["model_name"])
		for i, s := range steps {
			p := joinPath(prefix, fmt.Sprintf("steps[%d]", i))
			so, ok := object(s)
			if !ok {
				return in.errAt(base, raw, p, "want a step object")
			}
			role := str(so["source"])
			switch role {
			case "agent":
				role = "assistant"
			case "":
				return in.errAt(base, raw, p+".source", "missing source (system, user or agent)")
			}
			if t, ok := parseTime(so["timestamp"]); ok {
				if r.t.Started.IsZero() {
					r.t.Started = t
				}
				r.t.Ended = t
			} else if !isNull(so["timestamp"]) {
				return in.errAt(base, raw, p+".timestamp", "not a time: %s", textOf(so["timestamp"]))
			}
			if m := str(so["model_name"]); m != "" && r.t.Model == "" {
				r.t.Model = m
			}
			text := contentText(so["message"])
			if rc := str(so["reasoning_content"]); rc != "" {
				text = joinNotes("(reasoning) "+rc, text)
			}
			step := review.Step{Role: role, Content: text}
			calls, _ := array(so["tool_calls"])
			for j, c := range calls {
				co, ok := object(c)
				if !ok || str(co["function_name"]) == "" {
					return in.errAt(base, raw, fmt.Sprintf("%s.tool_calls[%d].function_name", p, j), "missing function_name")
				}
				step.ToolCalls = append(step.ToolCalls, review.ToolCall{ID: str(co["tool_call_id"]), Name: str(co["function_name"]), Arguments: argsText(co["arguments"])})
			}
			r.add(step)
			obs, _ := object(so["observation"])
			results, _ := array(obs["results"])
			for _, res := range results {
				ro, _ := object(res)
				content := contentText(ro["content"])
				if !r.link(str(ro["source_call_id"]), "", content) {
					last := &r.t.Steps[len(r.t.Steps)-1]
					last.Content = joinNotes(last.Content, "(observation) "+content)
					rep.Skip("observation results with no matching call (added to the step's text)", 1)
				}
			}
		}
		// ATIF records what a run cost (final_metrics), not how it ended.
		r.t.Outcome.Kind = review.OutcomeUnknown
		if fm, ok := object(o["final_metrics"]); ok {
			r.t.Outcome.Notes = "final_metrics: " + textOfMap(fm)
		}
		out = append(out, r.finish())
		rep.Places = append(rep.Places, placeOf(in, base, raw, joinPath(prefix, "session_id"), str(o["session_id"]) != ""))
		return nil
	}
	data := in.data()
	if err := eachValue(in, data, func(off int64, raw rawValue, _ int, path string) error {
		return one(off, raw, path)
	}); err != nil {
		return nil, err
	}
	return out, nil
}
