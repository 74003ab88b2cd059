package formats

// What the store would refuse, checked while reading so that a dry run
// and an import agree and the error names the file, line and field: ids
// (review.CheckID), the size of a trajectory (review.MaxTrajectoryBytes),
// and the text limits of the records memories become. Ids made from a
// file name are made safe instead (a file may be called anything).

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/printable"
)

// fileID makes an id from a file's base name and a suffix ("-3",
// "-s1-epoch1"): white space, path separators and control characters in
// the name become '-', and the name is cut so that the id fits
// review.MaxIDBytes.
func fileID(base, suffix string) string {
	var b strings.Builder
	for _, r := range base {
		if unicode.IsSpace(r) || r == '/' || r == '\\' || printable.Unsafe(r) || !unicode.IsPrint(r) || r == utf8.RuneError {
			r = '-'
		}
		b.WriteRune(r)
	}
	name := b.String()
	if name == "" || name == "." || name == ".." {
		name = "run"
	}
	room := review.MaxIDBytes - len(suffix)
	if room <= 0 {
		return suffix // too long whatever the name: CheckID says so
	}
	for len(name) > room {
		_, n := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-n]
	}
	return name + suffix
}

// checkRuns checks each trajectory as the store will: its id, and its
// size as JSON. places (parallel to ts, or nil) say where each run is and
// which field its id came from.
func checkRuns(in *Input, ts []review.Trajectory, places []Place) error {
	seen := make(map[string]int, len(ts))
	for i := range ts {
		var pl Place
		if places != nil {
			pl = places[i]
		}
		if err := review.CheckID(ts[i].ID); err != nil {
			return &InputError{File: in.File, Line: pl.Line, Field: pl.Field, Msg: fmt.Sprintf("run %d: %v", i+1, err)}
		}
		// Two runs of one file under one id cannot both be kept, and
		// their export would not import (Inspect samples that share an
		// id and epoch, or ids 7 and "7"): refused, naming both.
		if j, dup := seen[ts[i].ID]; dup {
			first := fmt.Sprintf("run %d", j+1)
			if places != nil && places[j].Field != "" {
				first += " (" + places[j].Field + ")"
			}
			return &InputError{File: in.File, Line: pl.Line, Field: pl.Field, Msg: fmt.Sprintf("run %d: duplicate run id %s, the id of %s too", i+1, printable.Line(ts[i].ID), first)}
		}
		seen[ts[i].ID] = i
		if err := checkSize(in.File, pl.Line, &ts[i]); err != nil {
			return err
		}
	}
	return nil
}

// checkSize refuses a trajectory over review.MaxTrajectoryBytes as JSON.
func checkSize(file string, line int, t *review.Trajectory) error {
	return checkSizeUpTo(file, line, t, review.MaxTrajectoryBytes)
}

// checkSizeUpTo refuses a trajectory over max bytes as JSON. It encodes
// the run only when its text alone cannot tell (JSON escapes make a byte
// at most six).
func checkSizeUpTo(file string, line int, t *review.Trajectory, max int) error {
	n := textSize(t)
	if n*6 <= max {
		return nil
	}
	msg := fmt.Sprintf("run %s holds %d bytes of text, more than the %d a trajectory may hold as JSON", printable.Line(t.ID), n, max)
	if n <= max {
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		if len(b) <= max {
			return nil
		}
		msg = fmt.Sprintf("run %s is %d bytes as JSON, over the %d a trajectory may hold", printable.Line(t.ID), len(b), max)
	}
	return &InputError{File: file, Line: line, Msg: msg}
}

// textSize is a lower bound of a trajectory's size as JSON: its text and a
// few bytes for each step and call.
func textSize(t *review.Trajectory) int {
	n := len(t.ID) + len(t.Env) + len(t.Task) + len(t.Model) + len(t.Format) + len(t.Outcome.Notes) + len(t.Outcome.Value) + 32
	for _, s := range t.Steps {
		n += len(s.Role) + len(s.Content) + len(s.ToolCallID) + len(s.Name) + 10
		for _, c := range s.ToolCalls {
			n += len(c.ID) + len(c.Name) + len(c.Arguments) + len(c.Result) + 24
		}
	}
	for _, r := range t.Retrieved {
		n += len(r) + 3
	}
	return n
}
