package formats

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/printable"
)

// lineSeeds are records and proposals files, good and bad, for the fuzzers.
var lineSeeds = []string{
	`{"id":"mem_1","lemma":"Prices are in cents.","category":"fact","scope":{"env":"shop"},"confidence":0.6}` + "\n",
	`{"id":"mem_2","lemma":"x","category":"fact","confidence":2}`,
	`{"id":"mem_3","lemma":"a\u001b[2Jb","category":"warning","status":"retired","checks":[{"kind":"sql","env":"shop","input":"SELECT 1"}]}` + "\n\n" + `{"id":"mem_3","lemma":"again"}`,
	`{"op":"create","rationale":"seen in the run","record":{"lemma":"Join on id.","category":"fact","scope":{"env":"shop"},"confidence":0.6}}`,
	`{"op":"merge","targets":["mem_1","mem_2"],"record":{"lemma":"both","category":"fact"}}`,
	`{"op":"delete","targets":["mem_1"],"status":"pending"}` + "\r\n" + `not json`,
	"\xef\xbb\xbf{}\n",
}

// checkInputError fails unless err is an InputError naming file (a line
// of the input, or none) whose message reaches a terminal safely.
func checkInputError(t *testing.T, err error, file string, lines int) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("an error that is not an InputError: %v", err)
	}
	if ie.File != file || ie.Line < 0 || ie.Line > lines+1 {
		t.Fatalf("the error names %s line %d of a %d-line %s: %v", ie.File, ie.Line, lines, file, err)
	}
	if msg := err.Error(); printable.Text(msg) != msg {
		t.Fatalf("the error would reach the terminal raw: %q", msg)
	}
}

// FuzzReadRecords: any records file is refused with an InputError that
// names it, a line and a field, printable; or every record read passes
// the record rules, with a distinct id and the line it came from, and
// they export as a file that reads back as itself.
func FuzzReadRecords(f *testing.F) {
	for _, s := range lineSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, at, err := ReadRecordsAt(bytes.NewReader(data), "fuzz.jsonl")
		n := bytes.Count(data, []byte("\n"))
		if err != nil {
			checkInputError(t, err, "fuzz.jsonl", n)
			return
		}
		if len(at) != len(recs) {
			t.Fatalf("%d records, %d lines", len(recs), len(at))
		}
		ids := map[string]bool{}
		for i := range recs {
			r := &recs[i]
			if i > 0 && at[i] <= at[i-1] || at[i] < 1 || at[i] > n+1 {
				t.Fatalf("record %d from line %d (lines %v)", i, at[i], at)
			}
			if strings.TrimSpace(r.ID) == "" || ids[r.ID] {
				t.Fatalf("record %d: id %q empty or repeated", i, r.ID)
			}
			ids[r.ID] = true
			if field, msg := review.CheckRecord(r); msg != "" {
				t.Fatalf("record %s read, but %s: %s", r.ID, field, msg)
			}
		}
		// What was read exports as a file that reads back as itself.
		var once, twice bytes.Buffer
		if err := WriteJSONL(&once, recs); err != nil {
			t.Fatal(err)
		}
		back, err := ReadRecords(bytes.NewReader(once.Bytes()), "export.jsonl")
		if err != nil {
			t.Fatalf("the records read do not read back once written: %v\n%s", err, once.Bytes())
		}
		if err := WriteJSONL(&twice, back); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatalf("written, read and written again, the records differ:\n%s\n%s", once.Bytes(), twice.Bytes())
		}
	})
}

// FuzzReadProposals: any proposals file is refused with an InputError
// that names it, printable; or every proposal read has an op and the
// line it came from, and they export as a file that reads back as
// itself.
func FuzzReadProposals(f *testing.F) {
	for _, s := range lineSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ps, at, err := ReadProposals(bytes.NewReader(data), "fuzz.jsonl")
		n := bytes.Count(data, []byte("\n"))
		if err != nil {
			checkInputError(t, err, "fuzz.jsonl", n)
			return
		}
		if len(at) != len(ps) {
			t.Fatalf("%d proposals, %d lines", len(ps), len(at))
		}
		for i, p := range ps {
			if i > 0 && at[i] <= at[i-1] || at[i] < 1 || at[i] > n+1 {
				t.Fatalf("proposal %d from line %d (lines %v)", i, at[i], at)
			}
			if p.Op == "" {
				t.Fatalf("proposal %d on line %d has no op", i, at[i])
			}
		}
		var once, twice bytes.Buffer
		if err := WriteJSONL(&once, ps); err != nil {
			t.Fatal(err)
		}
		back, _, err := ReadProposals(bytes.NewReader(once.Bytes()), "export.jsonl")
		if err != nil {
			t.Fatalf("the proposals read do not read back once written: %v\n%s", err, once.Bytes())
		}
		if err := WriteJSONL(&twice, back); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(once.Bytes(), twice.Bytes()) {
			t.Fatalf("written, read and written again, the proposals differ:\n%s\n%s", once.Bytes(), twice.Bytes())
		}
	})
}
