package formats

// Inspect AI evaluation logs: the JSON log ({version, status, eval, plan,
// results, stats, samples[]}) and the .eval zip (header.json and
// samples/*.json). One run per sample and epoch; attachment:// references
// are resolved from the sample's attachments; scores are the outcome.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/memreview/memreview/review"
)

func init() {
	register(&Format{Name: "inspect-ai", Kind: Trajectories,
		About: "Inspect AI logs (.json, and .eval zips): one run per sample and epoch, messages and tool calls, scores as the outcome, attachment:// resolved",
		fits:  fitsInspect, trajectories: readInspect})
}

func fitsInspect(in *Input) error {
	sh := in.getShape()
	switch sh.kind {
	case "object":
		if sh.keys["eval"] && (sh.keys["samples"] || sh.keys["version"]) {
			return nil
		}
	case "zip":
		for _, f := range sh.zip.File {
			if f.Name == "header.json" || strings.HasPrefix(f.Name, "samples/") {
				return nil
			}
		}
		return errors.New("a zip without header.json or samples/")
	}
	return errors.New("no \"eval\" with samples (JSON log) and not an .eval zip")
}

const maxZipMember = 512 << 20

func readInspect(in *Input, rep *Report) ([]review.Trajectory, error) {
	sh := in.getShape()
	if sh.kind == "object" {
		eval, _ := object(sh.obj["eval"])
		if isNull(sh.obj["samples"]) {
			return nil, in.errAt(0, in.data(), "samples", "the log has no samples (written with --no-log-samples?)")
		}
		samples, ok := array(sh.obj["samples"])
		if !ok {
			return nil, in.errAt(0, in.data(), "samples", "want an array of samples")
		}
		var out []review.Trajectory
		for i, s := range samples {
			t, err := inspectSample(in, s, eval, fmt.Sprintf("samples[%d]", i), rep)
			if err != nil {
				return nil, err
			}
			out = append(out, t)
			rep.Places = append(rep.Places, placeOf(in, 0, in.data(), fmt.Sprintf("samples[%d].id", i), true))
		}
		return out, nil
	}
	var eval map[string]rawValue
	var names []string
	members := map[string][]byte{}
	for _, f := range sh.zip.File {
		if f.Name != "header.json" && !(strings.HasPrefix(f.Name, "samples/") && strings.HasSuffix(f.Name, ".json")) {
			rep.Skip("zip members not read (journal, summaries, reductions)", 1)
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, &InputError{File: in.File + "[" + f.Name + "]", Msg: "unreadable zip member: " + err.Error()}
		}
		b, err := io.ReadAll(io.LimitReader(rc, maxZipMember+1))
		rc.Close()
		if err != nil || len(b) > maxZipMember {
			return nil, &InputError{File: in.File + "[" + f.Name + "]", Msg: "unreadable or over 512 MiB"}
		}
		if !json.Valid(b) {
			var v any
			return nil, NewInput(in.File+"["+f.Name+"]", b).decodeErr(0, b, "", json.Unmarshal(b, &v))
		}
		if f.Name == "header.json" {
			var h map[string]rawValue
			json.Unmarshal(b, &h)
			eval, _ = object(h["eval"])
			continue
		}
		members[f.Name] = b
		names = append(names, f.Name)
	}
	sort.Strings(names)
	var out []review.Trajectory
	for _, n := range names {
		sub := NewInput(in.File+"["+n+"]", members[n])
		t, err := inspectSample(sub, members[n], eval, "", rep)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, in.errAt(0, nil, "", "the .eval archive has no samples/*.json")
	}
	return out, nil
}

func inspectSample(in *Input, raw rawValue, eval map[string]rawValue, path string, rep *Report) (review.Trajectory, error) {
	s, ok := object(raw)
	if !ok {
		return review.Trajectory{}, in.errAt(0, in.data(), path, "want a sample object")
	}
	atts, _ := object(s["attachments"])
	resolve := func(t string) string {
		if ref, ok := strings.CutPrefix(t, "attachment://"); ok {
			if v, ok := atts[ref]; ok {
				return str(v)
			}
			rep.Skip("attachment:// references with no attachment (left as written)", 1)
		}
		return t
	}
	r := newRun(rep)
	msgs, ok := array(s["messages"])
	if !ok && !isNull(s["messages"]) {
		return review.Trajectory{}, in.errAt(0, in.data(), joinPath(path, "messages"), "want an array of messages")
	}
	for i, m := range msgs {
		dm, ok := decodeMsg(m)
		if !ok {
			return review.Trajectory{}, in.errAt(0, in.data(), fmt.Sprintf("%s[%d].role", joinPath(path, "messages"), i), "missing role")
		}
		dm.text = resolve(dm.text)
		for j := range dm.calls {
			dm.calls[j].Arguments = resolve(dm.calls[j].Arguments)
		}
		if mo, _ := object(m); mo != nil && !isNull(mo["error"]) {
			eo, _ := object(mo["error"])
			dm.text = joinNotes(dm.text, "error ("+str(eo["type"])+"): "+str(eo["message"]))
		}
		r.addMsg(dm)
	}
	if len(msgs) == 0 {
		rep.Skip("samples with no messages", 1)
	}
	id := str(s["id"])
	epoch := str(s["epoch"])
	r.t.ID = fmt.Sprintf("%s-%s-epoch%s", fileBaseName(strings.TrimSuffix(in.File, "]")), id, firstNonEmpty(epoch, "1"))
	if i := strings.IndexByte(in.File, '['); i > 0 {
		r.t.ID = fmt.Sprintf("%s-%s-epoch%s", fileBaseName(in.File[:i]), id, firstNonEmpty(epoch, "1"))
	}
	if t := str(s["input"]); t != "" {
		r.t.Task = resolve(t)
	}
	r.t.Model = str(eval["model"])
	r.t.Started, _ = parseTime(eval["created"])
	if st, ok := parseTime(s["started_at"]); ok {
		r.t.Started = st
	}
	r.t.Ended, _ = parseTime(s["completed_at"])
	if scores, ok := object(s["scores"]); ok && len(scores) > 0 {
		rep.Outcomes++
		names := slices.Sorted(maps.Keys(scores))
		var notes []string
		for i, n := range names {
			so, _ := object(scores[n])
			v := so["value"]
			notes = append(notes, fmt.Sprintf("%s: %s", n, textOf(v)))
			if exp := str(so["explanation"]); exp != "" {
				notes[len(notes)-1] += " (" + exp + ")"
			}
			if i == 0 {
				r.t.Outcome.Reward, r.t.Outcome.Passed = scoreValue(v)
			}
		}
		if target := textOf(s["target"]); target != "" {
			notes = append(notes, "target: "+target)
		}
		r.t.Outcome.Notes = strings.Join(notes, "; ")
	}
	return r.finish(), nil
}

// scoreValue reads an Inspect score: C/I/P/N letters, numbers, booleans.
func scoreValue(v rawValue) (float64, bool) {
	switch s := str(v); s {
	case "C", "true":
		return 1, true
	case "I", "N", "false", "":
		return 0, false
	case "P":
		return 0.5, false
	default:
		var f float64
		if _, err := fmt.Sscan(s, &f); err == nil {
			return f, f >= 1
		}
	}
	return 0, false
}
