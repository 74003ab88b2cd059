// Package probe runs read-only probes against the environments a memory bank
// describes: SQL on a SQLite database, read-only SQL on a PostgreSQL
// database, file operations under a folder (text, CSV, PDF, DOCX, XLSX,
// PPTX), and the read-only tools of another MCP server. Every probe is
// bounded (time, rows, bytes), refuses writes and escapes, and returns one
// Result with a stable JSON form and the environment's fingerprint, so a
// re-run can be compared with a recorded run.
//
// Run probes sql and files environments statelessly; a Runner also holds
// the PostgreSQL pools and MCP sessions that the other kinds need, and
// describes environments (Describe, Health, Tools). The engines live in
// sub-packages: probe/docs knows nothing of this one; probe/pg and
// probe/mcpenv are the drivers of the stateful kinds and register
// themselves (Register) when a program links them in, as its service
// does, so a package that only runs sql and files probes, or only holds
// Results, links neither pgx nor the MCP SDK. A stateful kind without its
// driver fails each probe with a sentence saying so. probe imports nothing
// of memreview but review/printable and probe/docs.
package probe

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// Result is the outcome of one probe run. Its JSON form is stable: it is
// stored in the bank and compared on re-runs. Values in Rows are strings,
// numbers (int64 or float64) or nil, exactly as stored. JSON has no
// infinities or NaN, so a non-finite float (SQLite's 1e999) is written as
// the string "+Inf", "-Inf" or "NaN" (see FiniteRows).
type Result struct {
	Env       string   `json:"env"`
	Kind      Kind     `json:"kind"`
	Input     string   `json:"input"`
	Columns   []string `json:"columns,omitempty"`
	Rows      [][]any  `json:"rows,omitempty"`
	Text      string   `json:"text,omitempty"`
	Truncated bool     `json:"truncated,omitempty"`
	// Note qualifies a successful result: for an MCP tool called because
	// the environment's allow-list names it, "read-only by your
	// allow-list, not by the server".
	Note        string  `json:"note,omitempty"`
	DurationMS  float64 `json:"duration_ms"`
	Fingerprint string  `json:"fingerprint,omitempty"`
	Error       string  `json:"error,omitempty"`
}

// MarshalJSON writes r with every non-finite float in Rows as a string, so
// that encoding a Result never fails, wherever it is embedded.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result // no methods: no recursion
	p := plain(r)
	p.Rows = FiniteRows(r.Rows)
	if math.IsNaN(p.DurationMS) || math.IsInf(p.DurationMS, 0) {
		p.DurationMS = 0
	}
	return json.Marshal(p)
}

// FiniteRows returns rows with every non-finite float64 replaced by its
// string form ("+Inf", "-Inf", "NaN"); rows itself is returned when it
// holds none, and it is never modified. Every JSON form of probe rows
// (Result's, and the curator's tool results) goes through it.
func FiniteRows(rows [][]any) [][]any {
	var out [][]any
	for i, row := range rows {
		for j, v := range row {
			f, ok := v.(float64)
			if !ok || !(math.IsInf(f, 0) || math.IsNaN(f)) {
				continue
			}
			if out == nil {
				out = make([][]any, len(rows))
				copy(out, rows)
			}
			if &out[i][0] == &rows[i][0] {
				out[i] = append([]any(nil), row...)
			}
			out[i][j] = strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
	if out == nil {
		return rows
	}
	return out
}

// OK reports whether the run succeeded.
func (r Result) OK() bool { return r.Error == "" }

// Verdict compares a re-run with a recorded run.
type Verdict string

// The verdicts of Compare.
const (
	Same       Verdict = "same"        // same output, same fingerprint
	Changed    Verdict = "changed"     // output differs
	FailsNow   Verdict = "fails-now"   // recorded ok, now an error
	EnvChanged Verdict = "env-changed" // same output, different fingerprint
	// NoBaseline: nothing was recorded to compare with (a check added
	// or edited without a run); it neither holds nor fails.
	NoBaseline Verdict = "no-baseline"
)

// Compare says how a fresh run relates to a recorded one. Output is compared
// through its canonical JSON encoding, so a recorded run decoded from storage
// (numbers as float64 or json.Number) compares equal to a fresh one.
func Compare(recorded, now Result) Verdict {
	if recorded.OK() && !now.OK() {
		return FailsNow
	}
	if recorded.Error != now.Error || !sameOutput(recorded, now) {
		return Changed
	}
	if recorded.Fingerprint != "" && now.Fingerprint != "" && recorded.Fingerprint != now.Fingerprint {
		return EnvChanged
	}
	return Same
}

func sameOutput(a, b Result) bool {
	if a.Text != b.Text || a.Truncated != b.Truncated {
		return false
	}
	return bytes.Equal(canonical(a.Columns), canonical(b.Columns)) &&
		bytes.Equal(canonical(FiniteRows(a.Rows)), canonical(FiniteRows(b.Rows)))
}

func canonical(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	// Round-trip through a generic decode so 3, 3.0 and json.Number("3")
	// all encode the same way.
	var g any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if d.Decode(&g) != nil {
		return b
	}
	out, _ := json.Marshal(normalize(g))
	return out
}

func normalize(v any) any {
	switch t := v.(type) {
	case json.Number:
		if f, err := t.Float64(); err == nil {
			return f
		}
		return t.String()
	case []any:
		for i := range t {
			t[i] = normalize(t[i])
		}
		return t
	case map[string]any:
		for k := range t {
			t[k] = normalize(t[k])
		}
		return t
	}
	return v
}
