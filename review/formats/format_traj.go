package formats

// ReadTrajectories: finding the JSON values of a trajectory file, either
// line by line (JSON Lines) or as a streamed JSON document (a pretty-printed
// array or object), and handing each to trajReader (openai.go).

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sort"

	"github.com/memreview/memreview/review"
)

// ReadTrajectories reads trajectories in any of the accepted forms, decided
// by content (never by file extension):
//
//   - memreview's own JSON Lines: one Trajectory per line, with "steps";
//   - OpenAI chat-format runs: a JSON array of messages (one run); an object
//     holding its messages under "messages", "traj", "trajectory" or
//     "history" (with optional id, task_id, trial, env, task, instruction,
//     info.task.instruction, reward, score, success); one such run per
//     line; or a JSON array of runs (such as tau-bench's result files).
//
// Assistant tool_calls become Step.ToolCalls and each tool message's content
// is copied into the matching call's Result (by tool_call_id). The whole
// input is validated first: on any problem it returns no trajectories and
// one *InputError. See docs/FORMATS.md for ids, tasks and outcomes.
func ReadChatTrajectories(r io.Reader, file string) ([]review.Trajectory, error) {
	ts, _, err := readTrajectories(r, file, review.MaxTrajectoryLineBytes)
	return ts, err
}

// Place is where an item of an input starts (its 1-based line) and the field
// its id came from, for messages about it (a duplicate id names both).
type Place struct {
	Line    int
	Field   string
	Outcome bool // the run states its outcome (reward, score, success or outcome)
}

// ReadTrajectoriesAt is ReadTrajectories that also says where each
// trajectory starts and which field its id came from.
func ReadTrajectoriesAt(r io.Reader, file string) ([]review.Trajectory, []Place, error) {
	return readTrajectories(r, file, review.MaxTrajectoryLineBytes)
}

func readTrajectories(r io.Reader, file string, max int) ([]review.Trajectory, []Place, error) {
	lr := newLineReader(r, file, max)
	tr := newTrajReader(file)
	doc := &docReader{lr: lr}
	var first []byte
	for first == nil {
		line, err := lr.next()
		if err == io.EOF {
			return nil, nil, inputErr(file, 0, "", "file is empty")
		}
		if err != nil {
			return nil, nil, err
		}
		doc.push(line)
		if t := bytes.TrimSpace(line); len(t) > 0 {
			first = t
		}
	}
	var err error
	if (first[0] == '{' || first[0] == '[') && json.Valid(first) {
		err = tr.lines(lr, first)
	} else {
		err = tr.document(doc)
	}
	if err != nil {
		return nil, nil, err
	}
	return tr.out, tr.at, nil
}

// lines reads JSON Lines: every non-blank line is one JSON value. first is
// the (already read) first non-blank line.
func (tr *trajReader) lines(lr *lineReader, first []byte) error {
	line := first
	for {
		if t := bytes.TrimSpace(line); len(t) > 0 {
			var raw json.RawMessage
			if err := decodeLine(tr.file, lr.n, t, &raw, false); err != nil {
				return err
			}
			if err := tr.value(raw, lr.n); err != nil {
				return err
			}
		}
		var err error
		line, err = lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// document reads a stream of JSON values that may span lines. A top-level
// array is streamed element by element.
func (tr *trajReader) document(doc *docReader) error {
	dec := json.NewDecoder(doc)
	for {
		start := dec.InputOffset()
		doc.keep(start)
		if !dec.More() {
			break
		}
		if firstByte(dec.Buffered()) == '[' {
			if err := tr.array(dec, doc); err != nil {
				return err
			}
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return doc.decodeErr(tr.file, err, start)
		}
		if err := tr.value(raw, doc.lineOf(dec.InputOffset()-int64(len(raw)))); err != nil {
			return err
		}
	}
	if doc.err != nil && doc.err != io.EOF {
		return jsonErr(tr.file, 0, "", nil, doc.err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return inputErr(tr.file, doc.lineOf(dec.InputOffset()), "", "unexpected data after the JSON value")
	}
	return nil
}

// array streams a top-level array: of messages (one run) or of runs.
func (tr *trajReader) array(dec *json.Decoder, doc *docReader) error {
	open := dec.InputOffset()
	if _, err := dec.Token(); err != nil {
		return doc.decodeErr(tr.file, err, open)
	}
	var msgs []json.RawMessage
	var lines []int
	n := 0
	for {
		start := dec.InputOffset()
		doc.keep(start)
		if !dec.More() {
			break
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return doc.decodeErr(tr.file, err, start)
		}
		line := doc.lineOf(dec.InputOffset() - int64(len(raw)))
		if n == 0 && isMessage(raw) || msgs != nil {
			msgs, lines = append(msgs, raw), append(lines, line)
		} else if err := tr.value(raw, line); err != nil {
			return err
		}
		n++
	}
	if doc.err != nil && doc.err != io.EOF {
		return jsonErr(tr.file, 0, "", nil, doc.err)
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != nil {
		return doc.decodeErr(tr.file, err, end)
	}
	if n == 0 {
		return inputErr(tr.file, doc.lineOf(open), "", "empty array: no messages or runs")
	}
	if msgs != nil {
		tr.runs++
		return tr.run(nil, nil, nil, lines[0], "", msgs, lines)
	}
	return nil
}

// docReader feeds a json.Decoder the lines of a lineReader (so line caps
// and UTF-8 checks hold in document mode too) and maps stream offsets back
// to line numbers. It keeps the bytes from the start of the value being
// decoded, to place syntax errors exactly.
type docReader struct {
	lr      *lineReader
	buf     []byte
	pending []byte
	starts  []int64 // starts[i]: stream offset of line i+1
	off     int64   // stream offset after the last byte pushed
	kept    []byte  // the stream's bytes from keptAt to off
	keptAt  int64
	err     error // the lineReader's error (io.EOF at the end)
}

func (d *docReader) push(line []byte) {
	d.starts = append(d.starts, d.off)
	d.off += int64(len(line))
	if len(d.pending) == 0 {
		d.pending = d.buf[:0]
	}
	d.pending = append(d.pending, line...)
	d.buf = d.pending
	d.kept = append(d.kept, line...)
}

func (d *docReader) Read(p []byte) (int, error) {
	for len(d.pending) == 0 {
		if d.err != nil {
			return 0, d.err
		}
		line, err := d.lr.next()
		if err != nil {
			d.err = err
			continue
		}
		d.push(line)
	}
	n := copy(p, d.pending)
	d.pending = d.pending[n:]
	return n, nil
}

// keep drops the kept bytes before stream offset from.
func (d *docReader) keep(from int64) {
	if from > d.keptAt && from <= d.off {
		d.kept = d.kept[from-d.keptAt:]
		d.keptAt = from
	}
}

// lineOf gives the 1-based line holding stream offset off.
func (d *docReader) lineOf(off int64) int {
	n := sort.Search(len(d.starts), func(i int) bool { return d.starts[i] > off })
	return max(n, 1)
}

// decodeErr places an error from decoding the value that starts at stream
// offset start (possibly after white space and a comma).
func (d *docReader) decodeErr(file string, err error, start int64) error {
	var ie *InputError
	if errors.As(err, &ie) {
		return ie
	}
	var se *json.SyntaxError
	if errors.As(err, &se) && start >= d.keptAt {
		rest := d.kept[start-d.keptAt:]
		skip := len(rest) - len(bytes.TrimLeft(rest, " \t\r\n,"))
		var raw json.RawMessage
		err2 := json.NewDecoder(bytes.NewReader(rest[skip:])).Decode(&raw)
		if errors.As(err2, &se) {
			return inputErr(file, d.lineOf(start+int64(skip)+se.Offset-1), "", "invalid JSON: %s", se.Error())
		}
		return inputErr(file, d.lineOf(start+int64(skip)), "", "invalid JSON: %s", se.Error())
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return inputErr(file, len(d.starts), "", "truncated JSON (unexpected end of input)")
	}
	return jsonErr(file, d.lineOf(start), "", nil, err)
}

// firstByte gives the first byte of r that is not JSON white space, or 0.
func firstByte(r io.Reader) byte {
	var b [1]byte
	for {
		if n, _ := r.Read(b[:]); n == 0 {
			return 0
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return b[0]
	}
}

// arrayElems splits a valid JSON array into its elements and their byte
// offsets in raw.
func rawArrayElems(raw []byte) ([]json.RawMessage, []int) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, nil
	}
	var elems []json.RawMessage
	var offs []int
	for dec.More() {
		var e json.RawMessage
		if dec.Decode(&e) != nil {
			break
		}
		elems = append(elems, e)
		offs = append(offs, int(dec.InputOffset())-len(e))
	}
	return elems, offs
}

// objectFields splits a valid JSON object into its fields and the byte
// offsets of their values in raw.
func objectFields(raw []byte) (map[string]json.RawMessage, map[string]int) {
	fields, offs := map[string]json.RawMessage{}, map[string]int{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fields, offs
	}
	for dec.More() {
		t, err := dec.Token()
		key, ok := t.(string)
		if err != nil || !ok {
			break
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			break
		}
		fields[key] = v
		offs[key] = int(dec.InputOffset()) - len(v)
	}
	return fields, offs
}

// isMessage reports whether raw is a chat message rather than a run.
func isMessage(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return false
	}
	fields, _ := objectFields(raw)
	if _, ok := fields["role"]; !ok {
		return false
	}
	for _, k := range append([]string{"steps"}, messageKeys...) {
		if _, ok := fields[k]; ok {
			return false
		}
	}
	return true
}
