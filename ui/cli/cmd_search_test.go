package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review/formats"
	"github.com/memreview/memreview/review/store"
)

// TestImportReturnsSearchable imports a batch long enough to be rebuilt:
// the import returns with the index holding all of it, so the next
// process finds the last record with nothing said about the index. Then a
// writer that is not memreview's import (the store, written behind the
// index's back) adds another batch: a new process's search finds its last
// record from the bank directly, says how far behind the index was, and
// returns without waiting for the catch-up, which another process
// finishes: a later search says nothing.
func TestImportReturnsSearchable(t *testing.T) {
	t.Parallel()
	bank := filepath.Join(t.TempDir(), "bank")
	must(t, mr(t, "", "--bank", bank, "init"))
	const n = 2100 // over rebuildMin
	records := func(from int) string {
		var b strings.Builder
		for i := from; i < from+n; i++ {
			fmt.Fprintf(&b, `{"id":"mem_%04d","lemma":"note %d about refunds","category":"fact","confidence":0.5,"provenance":{},"status":"active","version":1,"created":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z"}`+"\n", i, i)
		}
		return b.String()
	}
	file := filepath.Join(t.TempDir(), "records.jsonl")
	if err := os.WriteFile(file, []byte(records(0)), 0o644); err != nil {
		t.Fatal(err)
	}
	must(t, mr(t, "", "--bank", bank, "import", "records", file))
	r := must(t, mr(t, "", "--bank", bank, "search", "mem_2099"))
	if !strings.Contains(r.stdout, "mem_2099") || strings.Contains(r.stderr, "behind") {
		t.Fatalf("right after the import: stdout %q, stderr %q; want the last record, the index caught up", r.stdout, r.stderr)
	}

	st, err := store.Open(bank, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	recs, err := formats.ReadRecords(strings.NewReader(records(n)), "more.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.PutRecords(recs, "test", "behind the index's back"); err != nil {
		t.Fatal(err)
	}
	r = must(t, mrWith(t, "", []string{"MEMREVIEW_INDEX_HANDOFF_AFTER=0s"}, "--bank", bank, "search", "mem_4199"))
	if !strings.Contains(r.stdout, "mem_4199") {
		t.Fatalf("the last record written behind the index was not found:\n%s", r.stdout)
	}
	want := fmt.Sprintf("memreview: index %s changes behind: the %s changed items searched directly", thousands(n), thousands(n))
	if !strings.Contains(r.stderr, want) {
		t.Fatalf("stderr %q lacks %q", r.stderr, want)
	}
	// The search did not wait for the catch-up it started: another process
	// finishes it, and later searches find the index caught up.
	if !strings.Contains(r.stderr, "memreview: the index's catch-up goes on in process ") {
		t.Fatalf("stderr %q does not say the catch-up goes on elsewhere", r.stderr)
	}
	for i := 0; ; i++ {
		r = must(t, mr(t, "", "--bank", bank, "search", "mem_4199"))
		if !strings.Contains(r.stdout, "mem_4199") {
			t.Fatalf("the last record went missing:\n%s", r.stdout)
		}
		if !strings.Contains(r.stderr, "behind") {
			break
		}
		if i == 100 {
			t.Fatalf("the index is still behind after %d searches: %s", i, r.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got, err := st.RecordCount(); err != nil || got != 2*n {
		t.Fatalf("%d records, %v", got, err)
	}
}

func TestBehindNote(t *testing.T) {
	for _, c := range []struct {
		behind             int64
		direct, unsearched int
		want               string
	}{
		{80000, 20000, 60000, "index 80,000 changes behind: the newest 20,000 changed items searched directly, 60,000 not yet searchable"},
		{3, 2, 0, "index 3 changes behind: the 2 changed items searched directly"},
	} {
		if got := behindNote(&index.Results{Behind: c.behind, Direct: c.direct, Unsearched: c.unsearched}); got != c.want {
			t.Errorf("behindNote = %q, want %q", got, c.want)
		}
	}
}

// The hit count line says when only the first hits of a huge result set
// were ranked, and how to rank them all; nothing when all were.
func TestRankedNote(t *testing.T) {
	if got := rankedNote(0); got != "" {
		t.Errorf("rankedNote(0) = %q, want nothing", got)
	}
	if got, want := rankedNote(100_000), "; best of the first 100000 ranked (--exact ranks all)"; got != want {
		t.Errorf("rankedNote(100000) = %q, want %q", got, want)
	}
}

// show and search say a run with no outcome is unknown, and one whose
// outcome is not a reward ended as it says, never "passed=false" or
// "fail 0.00"; the index's passed facet holds them as unknown (issue 23
// item 11).
func TestOutcomesWithoutARewardInTheCLI(t *testing.T) {
	t.Parallel()
	bank := newCLIBank(t)
	runs := `{"id":"t_none","env":"shop","task":"zebra count with no outcome","steps":[{"role":"user","content":"zebra count"},{"role":"assistant","content":"3"}],"outcome":{"passed":false,"reward":0,"kind":"unknown"},"retrieved":["mem_1"]}
{"id":"t_value","env":"shop","task":"zebra count that ended submitted","steps":[{"role":"user","content":"zebra count"},{"role":"assistant","content":"3"}],"outcome":{"passed":false,"reward":0,"kind":"value","value":"submitted"},"retrieved":["mem_1"]}
`
	must(t, mr(t, runs, "--bank", bank, "import", "trajectories", "-"))
	show := must(t, mr(t, "", "--bank", bank, "show", "mem_1")).stdout
	for _, want := range []string{"retrieved by t_none  outcome unknown", "retrieved by t_value  ended: submitted", "0 passed, 0 failed, 2 without a reward"} {
		if !strings.Contains(show, want) {
			t.Errorf("show lacks %q:\n%s", want, show)
		}
	}
	found := must(t, mr(t, "", "--bank", bank, "search", "--type", "trajectory", "zebra")).stdout
	if !strings.Contains(found, "outcome unknown  zebra count with no outcome") || !strings.Contains(found, "ended: submitted  zebra count that ended") ||
		strings.Contains(found, "fail") {
		t.Errorf("search:\n%s", found)
	}
	if got := must(t, mr(t, "", "--bank", bank, "search", "--type", "trajectory", "passed:unknown")).stdout; !strings.Contains(got, "t_none") || !strings.Contains(got, "t_value") {
		t.Errorf("passed:unknown finds:\n%s", got)
	}
	if got := must(t, mr(t, "", "--bank", bank, "search", "--type", "trajectory", "passed:false")).stdout; strings.Contains(got, "t_none") {
		t.Errorf("passed:false finds a run with no outcome:\n%s", got)
	}
}

// With --json a search's hits carry their fragments, each match marked
// (the table prints none, and its search asks for none).
func TestSearchJSONMarksMatches(t *testing.T) {
	t.Parallel()
	bank := filepath.Join(t.TempDir(), "world")
	sampleWorld(t, bank)
	out := must(t, mr(t, "", "--bank", bank, "search", "--json", "price_cents")).stdout
	var res index.Results
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("search --json: %v\n%s", err, out)
	}
	if len(res.Hits) == 0 {
		t.Fatalf("price_cents found nothing in the sample world:\n%s", out)
	}
	for _, h := range res.Hits {
		marked := false
		for _, frags := range h.Fragments {
			for _, f := range frags {
				marked = marked || strings.Contains(f, index.MarkStart+"price_cents"+index.MarkEnd)
			}
		}
		if !marked {
			t.Errorf("hit %s: fragments %v mark no price_cents", h.ID, h.Fragments)
		}
	}
	table := must(t, mr(t, "", "--bank", bank, "search", "price_cents")).stdout
	if first, _, _ := strings.Cut(table, "\n"); !strings.HasPrefix(first, fmt.Sprintf("%d hits (", res.Total)) {
		t.Errorf("the table's first line is %q, want %d hits and the time", first, res.Total)
	}
}
