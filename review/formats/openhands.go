package formats

// OpenHands event streams: a JSON array (or lines, or {events: […]}) of
// events {id, timestamp, source, message, action + args | observation +
// content + extras, cause, tool_call_metadata}. Actions other than
// messages are tool calls; an observation is the result of the action its
// cause names (or whose tool_call_id it shares).

import (
	"errors"
	"fmt"

	"github.com/memreview/memreview/review"
)

func init() {
	register(&Format{Name: "openhands", Kind: Trajectories,
		About: "OpenHands event streams: actions as tool calls, observations linked by cause and tool_call_metadata, finish as the outcome",
		fits:  fitsOpenHands, trajectories: readOpenHands})
}

func fitsOpenHands(in *Input) error {
	sh := in.getShape()
	keys := sh.keys
	if sh.kind == "object" {
		evs, _ := array(sh.obj["events"])
		if len(evs) == 0 {
			return errors.New("no event array")
		}
		o, _ := object(evs[0])
		keys = keySet(o)
	} else if sh.kind != "array" && sh.kind != "lines" {
		return errors.New("not a JSON array or JSON Lines of events")
	}
	if keys["source"] && (keys["action"] || keys["observation"]) {
		return nil
	}
	return errors.New("the first event has no source with action or observation")
}

func readOpenHands(in *Input, rep *Report) ([]review.Trajectory, error) {
	data := in.data()
	type ev struct {
		raw  rawValue
		off  int64
		path string
	}
	var evs []ev
	switch sh := in.getShape(); sh.kind {
	case "array":
		elems, offs, err := arrayElems(in, data)
		if err != nil {
			return nil, err
		}
		for i, e := range elems {
			evs = append(evs, ev{e, offs[i], fmt.Sprintf("[%d]", i)})
		}
	case "object":
		elems, _ := array(sh.obj["events"])
		for i, e := range elems {
			evs = append(evs, ev{e, 0, fmt.Sprintf("events[%d]", i)})
		}
	case "lines":
		for _, l := range jsonLines(data) {
			evs = append(evs, ev{l.data, l.off, ""})
		}
	}
	r := newRun(rep)
	r.t.ID = fileID(fileBaseName(in.File), "")
	byEvent := map[string]string{} // action event id → its call id
	// The outcome is the agent's final state: the last agent_state_changed
	// (finished, error, stopped, …), else "finished" when it sent finish.
	state, completed := "", ""
	for _, e := range evs {
		o, ok := object(e.raw)
		if !ok {
			return nil, in.errAt(e.off, e.raw, e.path, "want an event object")
		}
		if !isNull(o["timestamp"]) {
			t, ok := parseTime(o["timestamp"])
			if !ok {
				return nil, in.errAt(e.off, e.raw, joinPath(e.path, "timestamp"), "not a time: %s", textOf(o["timestamp"]))
			}
			if r.t.Started.IsZero() {
				r.t.Started = t
			}
			r.t.Ended = t
		}
		source := str(o["source"])
		role := "assistant"
		if source == "user" {
			role = "user"
		}
		tcm, _ := object(o["tool_call_metadata"])
		if mr, ok := object(tcm["model_response"]); ok && r.t.Model == "" {
			r.t.Model = str(mr["model"])
		}
		args, _ := object(o["args"])
		switch {
		case !isNull(o["action"]):
			action := str(o["action"])
			thought := firstNonEmpty(str(args["thought"]), str(o["message"]))
			switch action {
			case "message", "system":
				text := firstNonEmpty(str(args["content"]), str(o["message"]))
				if action == "system" {
					role = "system"
				}
				r.add(review.Step{Role: role, Content: text})
			case "finish":
				text := firstNonEmpty(str(args["final_thought"]), str(args["thought"]), str(o["message"]))
				r.add(review.Step{Role: role, Content: text})
				state, completed = "finished", textOf(args["task_completed"])
				notes := "finished"
				if completed != "" {
					notes += "; task_completed: " + completed
				}
				if out := textOf(args["outputs"]); out != "" && out != "{}" {
					notes += "; outputs: " + out
				}
				r.t.Outcome.Notes = notes
			default:
				name := firstNonEmpty(str(tcm["function_name"]), action)
				id := str(tcm["tool_call_id"])
				if id == "" {
					id = "event-" + str(o["id"])
				}
				byEvent[str(o["id"])] = id
				call := review.ToolCall{ID: id, Name: name, Arguments: textOf(o["args"])}
				if s := str(args["command"]); s != "" {
					call.Arguments = s
				}
				text := thought
				if text == "" || text == call.Arguments {
					text = ""
				}
				r.add(review.Step{Role: role, Content: text, ToolCalls: []review.ToolCall{call}})
			}
		case !isNull(o["observation"]):
			text := firstNonEmpty(str(o["content"]), str(o["message"]))
			id := byEvent[str(o["cause"])]
			if id == "" {
				id = str(tcm["tool_call_id"])
			}
			if str(o["observation"]) == "agent_state_changed" {
				extras, _ := object(o["extras"])
				if st := str(extras["agent_state"]); st != "" {
					state = st
				}
			}
			if id == "" {
				rep.Skip("observations that answer no action (state changes, kept as steps)", 1)
				r.add(review.Step{Role: "tool", Content: text, Name: str(o["observation"])})
				continue
			}
			r.result(id, "", text)
		default:
			rep.Skip("events with neither action nor observation", 1)
		}
	}
	if len(r.t.Steps) == 0 {
		return nil, in.errAt(0, nil, "", "no events")
	}
	r.t.Outcome.Kind = review.OutcomeUnknown
	if state != "" {
		r.t.Outcome.Kind, r.t.Outcome.Value = review.OutcomeValue, state
		if completed != "" {
			r.t.Outcome.Value += " (task_completed: " + completed + ")"
		}
	}
	return []review.Trajectory{r.finish()}, nil
}
