package formats

// Langfuse trace exports: {trace, observations[]} (one object, an array of
// them, or one per line). Observations are spans (SPAN, GENERATION, TOOL,
// AGENT, …) whose input, output and metadata are objects in some exports
// and JSON strings in others; metadata.attributes holds the OTel span
// attributes. spans.go turns them into a run per trace.

import (
	"errors"
	"fmt"
	"strings"

	"github.com/memreview/memreview/review"
)

func init() {
	register(&Format{Name: "langfuse", Kind: Trajectories,
		About: "Langfuse trace exports {trace, observations[]}: GENERATION messages and TOOL results, one run per trace, trace scores as the outcome",
		fits:  fitsLangfuse, trajectories: readLangfuse})
}

func fitsLangfuse(in *Input) error {
	sh := in.getShape()
	if (sh.kind == "object" || sh.kind == "array" || sh.kind == "lines") && sh.keys["observations"] && sh.keys["trace"] {
		return nil
	}
	return errors.New("no {trace, observations} object")
}

func readLangfuse(in *Input, rep *Report) ([]review.Trajectory, error) {
	data := in.data()
	var out []review.Trajectory
	one := func(base int64, raw rawValue, prefix string) error {
		obj, ok := object(raw)
		if !ok {
			return in.errAt(base, raw, prefix, "want a {trace, observations} object")
		}
		trace, ok := object(obj["trace"])
		if !ok {
			return in.errAt(base, raw, joinPath(prefix, "trace"), "want an object")
		}
		obs, ok := array(obj["observations"])
		if !ok {
			return in.errAt(base, raw, joinPath(prefix, "observations"), "want an array")
		}
		traceID := str(trace["id"])
		if traceID != "" {
			if err := review.CheckID(traceID); err != nil {
				return in.errAt(base, raw, joinPath(prefix, "trace.id"), "%v", err)
			}
		}
		var spans []*span
		for i, o := range obs {
			oo, ok := object(o)
			p := joinPath(prefix, fmt.Sprintf("observations[%d]", i))
			if !ok {
				return in.errAt(base, raw, p, "want an observation object")
			}
			s := &span{trace: str(oo["traceId"]), id: str(oo["id"]), parent: str(oo["parentObservationId"]),
				name: str(oo["name"]), kind: str(oo["type"]), model: str(oo["model"]), attrs: map[string]rawValue{},
				input: unwrap(oo["input"]), output: unwrap(oo["output"]), order: i,
				base: base, raw: raw, path: p, attrsAt: "metadata.attributes", traceField: "traceId"}
			if s.trace == "" {
				s.trace, s.path, s.traceField = traceID, prefix, "trace.id"
			}
			s.calls = observationCalls(oo)
			if t, ok := parseTime(oo["startTime"]); ok {
				s.start = t
			} else if !isNull(oo["startTime"]) {
				return in.errAt(base, raw, p+".startTime", "not a time: %s", textOf(oo["startTime"]))
			}
			s.end, _ = parseTime(oo["endTime"])
			if md, ok := object(oo["metadata"]); ok {
				if a, ok := object(md["attributes"]); ok {
					for k, v := range a {
						flatten(s.attrs, k, v)
					}
				}
			}
			if str(oo["level"]) == "ERROR" {
				s.errMsg = firstNonEmpty(str(oo["statusMessage"]), "error")
			}
			spans = append(spans, s)
		}
		if len(spans) == 0 {
			return in.errAt(base, raw, joinPath(prefix, "observations"), "no observations")
		}
		// A trace holds one run; spanRuns would split it by conversation id.
		for _, s := range spans {
			delete(s.attrs, "gen_ai.conversation.id")
			delete(s.attrs, "session.id")
		}
		runs, err := spanRuns(in, spans, fileID(fileBaseName(in.File), ""), rep)
		if err != nil {
			return err
		}
		for i := range runs {
			t := &runs[i]
			if traceID != "" && len(runs) == 1 {
				t.ID = traceID
			}
			if ts, ok := parseTime(trace["timestamp"]); ok && (t.Started.IsZero() || ts.Before(t.Started)) {
				t.Started = ts
			}
			if t.Task == "" {
				t.Task = textOf(unwrap(trace["input"]))
			}
			if scores, ok := array(trace["scores"]); ok && len(scores) > 0 {
				// Scores are evaluations (a number, a category, a boolean),
				// not a reward: the outcome is their values as written.
				var vals []string
				for _, sc := range scores {
					so, _ := object(sc)
					v := firstNonEmpty(str(so["stringValue"]), textOf(so["value"]))
					vals = append(vals, fmt.Sprintf("%s: %s", str(so["name"]), v))
					if c := str(so["comment"]); c != "" {
						t.Outcome.Notes = joinNotes(t.Outcome.Notes, str(so["name"])+": "+c)
					}
				}
				t.Outcome.Kind, t.Outcome.Value = review.OutcomeValue, strings.Join(vals, "; ")
			}
		}
		out = append(out, runs...)
		for range runs {
			rep.Places = append(rep.Places, placeOf(in, base, raw, joinPath(prefix, "trace.id"), len(runs) == 1 && str(trace["id"]) != ""))
		}
		return nil
	}
	if err := eachValue(in, data, func(off int64, raw rawValue, _ int, path string) error {
		return one(off, raw, path)
	}); err != nil {
		return nil, err
	}
	return out, nil
}

func joinNotes(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// observationCalls reads the tool calls Langfuse lists beside a
// generation's output (toolCalls, each a JSON object or a string holding
// one, with the names in toolCallNames).
func observationCalls(o map[string]rawValue) []review.ToolCall {
	list, _ := array(o["toolCalls"])
	names, _ := array(o["toolCallNames"])
	var out []review.ToolCall
	for i, c := range list {
		co, ok := object(c)
		if !ok {
			continue
		}
		tc := review.ToolCall{ID: str(co["id"]), Name: str(co["name"]), Arguments: argsText(firstPresent(co, "arguments", "input"))}
		if tc.Name == "" && i < len(names) {
			tc.Name = str(names[i])
		}
		if tc.Name != "" {
			out = append(out, tc)
		}
	}
	return out
}
