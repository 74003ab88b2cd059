package formats

// SWE-agent .traj files: {environment, trajectory[], history[], info,
// replay_config}. history is the chat; trajectory is SWE-agent's own step
// list (thought, action, observation), used when there is no history.

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/memreview/memreview/review"
)

func init() {
	register(&Format{Name: "swe-agent", Kind: Trajectories,
		About: "SWE-agent .traj: the chat under history (tool_calls or an action per message), else the trajectory steps; info (exit_status, submission, model_stats) as outcome notes",
		fits:  fitsSWEAgent, trajectories: readSWEAgent})
}

func fitsSWEAgent(in *Input) error {
	sh := in.getShape()
	if sh.kind != "object" {
		return errors.New("not one JSON object")
	}
	if traj, ok := array(sh.obj["trajectory"]); ok && len(traj) > 0 {
		if st, ok := object(traj[0]); ok && (st["action"] != nil || st["observation"] != nil) {
			return nil
		}
	}
	if hist, ok := array(sh.obj["history"]); ok {
		if sh.keys["info"] || sh.keys["environment"] {
			return nil
		}
		if len(hist) > 0 {
			if m, ok := object(hist[0]); ok && (m["agent"] != nil || m["message_type"] != nil) {
				return nil
			}
		}
	}
	return errors.New("no \"trajectory\" of action/observation steps and no \"history\" with info, environment or agent/message_type")
}

func readSWEAgent(in *Input, rep *Report) ([]review.Trajectory, error) {
	obj := in.getShape().obj
	data := in.data()
	r := newRun(rep)
	id := strings.TrimSuffix(filepath.Base(in.File), filepath.Ext(in.File))
	if id == "" || id == "." || id == "-" {
		id = "swe-agent"
	}
	r.t.ID = fileID(id, "")
	steps, hasSteps := array(obj["trajectory"])
	if !isNull(obj["trajectory"]) && !hasSteps {
		return nil, in.errAt(0, data, "trajectory", "want an array of steps")
	}
	if !isNull(obj["history"]) {
		hist, ok := array(obj["history"])
		if !ok {
			return nil, in.errAt(0, data, "history", "want an array of messages")
		}
		if err := sweHistory(in, r, hist); err != nil {
			return nil, err
		}
		rep.Skip("trajectory steps not imported (history holds the same run as chat)", len(steps))
		sweLastObservation(r, steps)
	} else {
		if len(steps) == 0 {
			return nil, in.errAt(0, data, "trajectory", "no steps and no history")
		}
		for i, s := range steps {
			st, ok := object(s)
			if !ok {
				return nil, in.errAt(0, data, fmt.Sprintf("trajectory[%d]", i), "want an object (thought, action, observation)")
			}
			text := textOf(st["response"])
			if text == "" {
				text = textOf(st["thought"])
			}
			step := review.Step{Role: "assistant", Content: text}
			if a := textOf(st["action"]); strings.TrimSpace(a) != "" {
				step.ToolCalls = []review.ToolCall{actionCall(a)}
			}
			r.add(step)
			if obs := st["observation"]; !isNull(obs) || len(step.ToolCalls) > 0 {
				r.result("", "", textOf(obs))
			}
		}
	}
	r.t.Outcome.Kind = review.OutcomeUnknown
	if info, ok := object(obj["info"]); ok {
		var notes []string
		if s := textOf(info["exit_status"]); s != "" {
			notes = append(notes, "exit_status: "+s)
			// How the agent stopped (submitted, exit_cost, …): not a
			// verdict, no tests were run here.
			r.t.Outcome.Kind, r.t.Outcome.Value = review.OutcomeValue, s
		}
		if s := textOf(info["submission"]); s != "" {
			notes = append(notes, fmt.Sprintf("submission: %d bytes (submitted is not passed: no tests were run here)", len(s)))
		}
		if s := textOf(info["model_stats"]); s != "" {
			notes = append(notes, "model_stats: "+s)
		}
		r.t.Outcome.Notes = strings.Join(notes, "; ")
	}
	r.t.Model = sweModel(obj)
	// environment names SWE-agent's container setup, not a memreview
	// environment: it is not copied into Env (scope filters use Env).
	t := r.finish()
	t.Task = issueText(t.Task)
	return []review.Trajectory{t}, nil
}

func sweHistory(in *Input, r *run, hist []rawValue) error {
	actionOpen := false // a call made by an "action" awaits its observation
	for i, h := range hist {
		m, ok := object(h)
		if !ok || str(m["role"]) == "" {
			return in.errAt(0, in.data(), fmt.Sprintf("history[%d].role", i), "missing role")
		}
		dm, _ := decodeMsg(h)
		role := dm.role
		switch {
		case role == "tool":
			ids, _ := array(m["tool_call_ids"])
			step := review.Step{Role: "tool", Content: dm.text}
			var idList []string
			for _, id := range ids {
				idList = append(idList, str(id))
			}
			if dm.callID != "" {
				idList = append(idList, dm.callID)
			}
			if len(idList) > 0 {
				step.ToolCallID = idList[0]
			}
			r.add(step)
			linked := false
			for _, id := range idList {
				linked = r.link(id, "", dm.text) || linked
			}
			if len(idList) == 0 {
				linked = r.link("", "", dm.text)
			}
			if !linked {
				r.rep.Skip("tool results with no matching call (kept as steps, not linked)", 1)
			}
			actionOpen = false
		case role == "assistant":
			step := review.Step{Role: role, Content: dm.text, ToolCalls: dm.calls}
			if a := textOf(m["action"]); len(step.ToolCalls) == 0 && strings.TrimSpace(a) != "" {
				step.ToolCalls = []review.ToolCall{actionCall(a)}
			}
			// Its observation may come as the next message, a tool message
			// or (without function calling, or when the harness answers a
			// call itself) a user message.
			actionOpen = len(step.ToolCalls) > 0
			if step.Content == "" {
				step.Content = textOf(m["thought"])
			}
			r.add(step)
		default:
			r.add(review.Step{Role: role, Content: dm.text})
			if actionOpen && role == "user" && str(m["message_type"]) != "action" && str(m["is_demo"]) != "true" {
				r.link("", "", dm.text)
			}
			actionOpen = false
		}
	}
	// The task: the first user message that is not a demonstration.
	for i, h := range hist {
		m, _ := object(h)
		if str(m["role"]) == "user" && str(m["is_demo"]) != "true" {
			r.t.Task = r.t.Steps[i].Content
			break
		}
	}
	return nil
}

// sweLastObservation links the last action's observation from the
// trajectory steps: SWE-agent ends the run on the final submit (or an
// exit), so history has the call but not its result (the diff).
func sweLastObservation(r *run, steps []rawValue) {
	if len(r.open) == 0 || len(steps) == 0 {
		return
	}
	last, _ := object(steps[len(steps)-1])
	obs := textOf(last["observation"])
	ref := r.open[len(r.open)-1]
	call := r.t.Steps[ref.step].ToolCalls[ref.call]
	if strings.TrimSpace(obs) == "" || ref.step != len(r.t.Steps)-1 {
		return
	}
	if a := strings.TrimSpace(textOf(last["action"])); a != strings.TrimSpace(call.Arguments) && a != call.Name && actionCall(a).Name != call.Name {
		return
	}
	r.link(call.ID, "", obs)
}

// actionCall turns a SWE-agent command into a tool call named by its first
// word.
func actionCall(action string) review.ToolCall {
	a := strings.TrimSpace(action)
	name, _, _ := strings.Cut(a, " ")
	name, _, _ = strings.Cut(name, "\n")
	return review.ToolCall{Name: name, Arguments: a}
}

func sweModel(obj map[string]rawValue) string {
	rc, ok := object(obj["replay_config"])
	if !ok {
		return ""
	}
	agent, _ := object(rc["agent"])
	model, _ := object(agent["model"])
	for _, k := range []string{"name", "model_name"} {
		if s := str(model[k]); s != "" {
			return s
		}
	}
	return ""
}

// issueText cuts SWE-agent's default instance template down to the issue:
// the text between "ISSUE:" and "INSTRUCTIONS:" when both are there, else
// the message as it is.
func issueText(task string) string {
	_, rest, ok := strings.Cut(task, "ISSUE:\n")
	if !ok {
		return task
	}
	issue, _, ok := strings.Cut(rest, "\nINSTRUCTIONS:")
	if !ok || strings.TrimSpace(issue) == "" {
		return task
	}
	return strings.TrimSpace(issue)
}
