package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memreview/memreview/index"
	"github.com/memreview/memreview/review/store"
)

// TestSearchSaysItIsBehind imports a batch long enough to be rebuilt into
// a bank whose index holds none of it, then searches from a new process:
// the last record is found from the bank directly before the catch-up
// (which waits for that first answer), stderr says how far behind the
// index was, and the command leaves the index caught up, so the next
// search says nothing.
func TestSearchSaysItIsBehind(t *testing.T) {
	t.Parallel()
	bank := filepath.Join(t.TempDir(), "bank")
	must(t, mr(t, "", "--bank", bank, "init"))
	must(t, mr(t, "", "--bank", bank, "search", "anything")) // builds the empty bank's index
	var b strings.Builder
	const n = 2100 // over rebuildMin
	for i := range n {
		fmt.Fprintf(&b, `{"id":"mem_%04d","lemma":"note %d about refunds","category":"fact","confidence":0.5,"provenance":{},"status":"active","version":1,"created":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z"}`+"\n", i, i)
	}
	file := filepath.Join(t.TempDir(), "records.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	must(t, mr(t, "", "--bank", bank, "import", "records", file))
	r := must(t, mr(t, "", "--bank", bank, "search", "mem_2099"))
	if !strings.Contains(r.stdout, "mem_2099") {
		t.Fatalf("the last record was not found:\n%s", r.stdout)
	}
	want := fmt.Sprintf("memreview: index %s changes behind: the %s changed items searched directly", thousands(n), thousands(n))
	if !strings.Contains(r.stderr, want) {
		t.Fatalf("stderr %q lacks %q", r.stderr, want)
	}
	r = must(t, mr(t, "", "--bank", bank, "search", "mem_2099"))
	if !strings.Contains(r.stdout, "mem_2099") || strings.Contains(r.stderr, "behind") {
		t.Fatalf("after the catch-up: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	st, err := store.Open(bank, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if n, err := st.RecordCount(); err != nil || n != 2100 {
		t.Fatalf("%d records, %v", n, err)
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
