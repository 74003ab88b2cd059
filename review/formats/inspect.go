package formats

// Inspect AI evaluation logs: the JSON log ({version, status, eval, plan,
// results, stats, samples[]}) and the .eval zip (header.json and
// samples/*.json). One run per sample and epoch; attachment:// references
// are resolved from the sample's attachments; scores are the outcome.

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/printable"
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

// The caps on an .eval archive, which is read member by member: what one
// member may hold uncompressed (as much as a log file may), and what the
// members read may hold together (a zip's members can compress a
// thousandfold). Variables so that tests can build bombs of a few bytes.
var (
	maxZipMember int64 = review.MaxTrajectoryLineBytes
	maxZipTotal  int64 = 4 * review.MaxTrajectoryLineBytes
)

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
	return readEvalZip(in, sh.zip, rep)
}

// readEvalZip reads an .eval archive one member at a time: header.json
// first (the eval's model and time), then each samples/*.json in name
// order, each read, checked and let go before the next. Sizes are checked
// as declared before anything is inflated, and as read.
func readEvalZip(in *Input, zr *zip.Reader, rep *Report) ([]review.Trajectory, error) {
	var header *zip.File
	var samples []*zip.File
	var declared uint64
	for _, f := range zr.File {
		switch {
		case f.Name == "header.json":
			header = f
		case strings.HasPrefix(f.Name, "samples/") && strings.HasSuffix(f.Name, ".json"):
			samples = append(samples, f)
		default:
			rep.Skip("zip members not read (journal, summaries, reductions)", 1)
			continue
		}
		if f.UncompressedSize64 > uint64(maxZipMember) {
			return nil, &InputError{File: memberName(in, f), Msg: fmt.Sprintf("the member declares %d bytes uncompressed, over the %d one member may hold; nothing was read", f.UncompressedSize64, maxZipMember)}
		}
		if declared += f.UncompressedSize64; declared > uint64(maxZipTotal) {
			return nil, &InputError{File: in.File, Msg: fmt.Sprintf("the archive's header and sample members declare %d bytes or more uncompressed, over the %d an archive may hold; nothing was read", declared, maxZipTotal)}
		}
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i].Name < samples[j].Name })
	var total int64
	read := func(f *zip.File) ([]byte, *Input, error) {
		name := memberName(in, f)
		rc, err := f.Open()
		if err != nil {
			return nil, nil, &InputError{File: name, Msg: "unreadable zip member: " + err.Error()}
		}
		defer rc.Close()
		b, err := io.ReadAll(io.LimitReader(rc, maxZipMember+1))
		if err != nil {
			return nil, nil, &InputError{File: name, Msg: "unreadable zip member: " + err.Error()}
		}
		if int64(len(b)) > maxZipMember {
			return nil, nil, &InputError{File: name, Msg: fmt.Sprintf("the member inflates past %d bytes, the most one member may hold", maxZipMember)}
		}
		if total += int64(len(b)); total > maxZipTotal {
			return nil, nil, &InputError{File: name, Msg: fmt.Sprintf("the members read so far inflate to %d bytes, over the %d an archive may hold", total, maxZipTotal)}
		}
		sub := NewInput(name, b)
		if !json.Valid(b) {
			var v any
			return nil, nil, sub.decodeErr(0, b, "", json.Unmarshal(b, &v))
		}
		return b, sub, nil
	}
	var eval map[string]rawValue
	if header != nil {
		b, _, err := read(header)
		if err != nil {
			return nil, err
		}
		var h map[string]rawValue
		json.Unmarshal(b, &h)
		eval, _ = object(h["eval"])
	}
	var out []review.Trajectory
	member := map[string]string{} // run id → the member it came from
	for _, f := range samples {
		b, sub, err := read(f)
		if err != nil {
			return nil, err
		}
		t, err := inspectSample(sub, b, eval, "", rep)
		if err != nil {
			return nil, err
		}
		if first, dup := member[t.ID]; dup {
			return nil, sub.errAt(0, b, "id", "duplicate run id %s: %s has the same sample id and epoch", printable.Line(t.ID), first)
		}
		member[t.ID] = f.Name
		if err := review.CheckID(t.ID); err != nil {
			return nil, sub.errAt(0, b, "id", "%v", err)
		}
		if err := checkSize(sub.File, 0, &t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, in.errAt(0, nil, "", "the .eval archive has no samples/*.json")
	}
	return out, nil
}

func memberName(in *Input, f *zip.File) string { return in.File + "[" + f.Name + "]" }

func inspectSample(in *Input, raw rawValue, eval map[string]rawValue, path string, rep *Report) (review.Trajectory, error) {
	s, ok := object(raw)
	if !ok {
		return review.Trajectory{}, in.errAt(0, in.data(), path, "want a sample object")
	}
	atts, _ := object(s["attachments"])
	// Each attachment:// reference is replaced by the attachment it names;
	// what the references expand to is capped, so that a small log that
	// cites one large attachment many times cannot become a huge run.
	budget := review.MaxTrajectoryBytes
	resolved := map[string]string{}
	var expandErr error
	resolve := func(t, field string) string {
		ref, ok := strings.CutPrefix(t, "attachment://")
		if !ok {
			return t
		}
		v, ok := atts[ref]
		if !ok {
			rep.Skip("attachment:// references with no attachment (left as written)", 1)
			return t
		}
		a, ok := resolved[ref]
		if !ok {
			a = str(v)
			resolved[ref] = a // decoded once, however often it is cited
		}
		if budget -= len(a); budget < 0 {
			if expandErr == nil {
				expandErr = in.errAt(0, in.data(), field, "attachment://%s expands the sample past %d bytes of attachments, the most a trajectory may hold", printable.Line(ref), review.MaxTrajectoryBytes)
			}
			return t
		}
		return a
	}
	r := newRun(rep)
	msgs, ok := array(s["messages"])
	if !ok && !isNull(s["messages"]) {
		return review.Trajectory{}, in.errAt(0, in.data(), joinPath(path, "messages"), "want an array of messages")
	}
	for i, m := range msgs {
		at := fmt.Sprintf("%s[%d]", joinPath(path, "messages"), i)
		dm, ok := decodeMsg(m)
		if !ok {
			return review.Trajectory{}, in.errAt(0, in.data(), at+".role", "missing role")
		}
		dm.text = resolve(dm.text, at+".content")
		for j := range dm.calls {
			dm.calls[j].Arguments = resolve(dm.calls[j].Arguments, fmt.Sprintf("%s.tool_calls[%d].arguments", at, j))
		}
		if expandErr != nil {
			return review.Trajectory{}, expandErr
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
	epoch := firstNonEmpty(str(s["epoch"]), "1")
	file := in.File
	if i := strings.IndexByte(file, '['); i > 0 {
		file = file[:i] // a member of an .eval archive: the archive's name
	}
	r.t.ID = fileID(fileBaseName(file), fmt.Sprintf("-%s-epoch%s", id, epoch))
	if t := str(s["input"]); t != "" {
		r.t.Task = resolve(t, joinPath(path, "input"))
		if expandErr != nil {
			return review.Trajectory{}, expandErr
		}
	}
	r.t.Model = str(eval["model"])
	r.t.Started, _ = parseTime(eval["created"])
	if st, ok := parseTime(s["started_at"]); ok {
		r.t.Started = st
	}
	r.t.Ended, _ = parseTime(s["completed_at"])
	r.t.Outcome.Kind = review.OutcomeUnknown
	if scores, ok := object(s["scores"]); ok && len(scores) > 0 {
		// A score is the scorer's value (C, I, a number, a dict), not a
		// reward: the outcome holds it as written.
		names := slices.Sorted(maps.Keys(scores))
		var notes, vals []string
		for i, n := range names {
			so, _ := object(scores[n])
			v := so["value"]
			vals = append(vals, fmt.Sprintf("%s: %s", n, textOf(v)))
			if exp := str(so["explanation"]); exp != "" {
				notes = append(notes, n+": "+exp)
			}
			if i == 0 {
				r.t.Outcome.Reward, r.t.Outcome.Passed = scoreValue(v)
			}
		}
		if target := textOf(s["target"]); target != "" {
			notes = append(notes, "target: "+target)
		}
		r.t.Outcome.Kind, r.t.Outcome.Value = review.OutcomeValue, strings.Join(vals, "; ")
		r.t.Outcome.Notes = strings.Join(notes, "; ")
	}
	return r.finish(), nil
}

// scoreValue reads an Inspect score value as Inspect's own
// value_to_float does (C 1, P 0.5, I and N 0, booleans and numbers as
// they are); passed is true for C (CORRECT) and true only.
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
			return f, false
		}
	}
	return 0, false
}
