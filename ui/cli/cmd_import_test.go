package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// import memories: --dry-run writes nothing; a plain import queues
// pending create proposals citing their source; --accept makes records.
func TestImportMemoriesCLI(t *testing.T) {
	bank := newCLIBank(t)
	f := filepath.Join(t.TempDir(), "export.json")
	mem0 := `[{"id":"m-1","memory":"Prefers aisle seats","user_id":"alice","created_at":"2024-07-20T10:00:00Z"},{"id":"m-2","memory":"Flies from Oslo","user_id":"alice"}]`
	if err := os.WriteFile(f, []byte(mem0), 0o644); err != nil {
		t.Fatal(err)
	}
	before := exportAll(t, bank)
	r := must(t, mr(t, "", "--bank", bank, "import", "memories", "--dry-run", f))
	if !strings.Contains(r.stdout, "(mem0): 2 memories") || !strings.Contains(r.stdout, "Prefers aisle seats") || !strings.Contains(r.stdout, "nothing was written") {
		t.Fatalf("dry run: %s", r.stdout)
	}
	if exportAll(t, bank) != before {
		t.Fatal("a dry run changed the bank")
	}
	must(t, mr(t, "", "--bank", bank, "import", "memories", "--env", "air", f))
	q := must(t, mr(t, "", "--bank", bank, "queue", "--json"))
	if strings.Count(q.stdout, `"op": "create"`) != 2 || !strings.Contains(q.stdout, `"format": "mem0"`) || !strings.Contains(q.stdout, `"user": "alice"`) || !strings.Contains(q.stdout, `"env": "air"`) {
		t.Fatalf("queue: %s", q.stdout)
	}
	g := filepath.Join(t.TempDir(), "graph.jsonl")
	os.WriteFile(g, []byte(`{"type":"entity","name":"Oslo","entityType":"City","observations":["Has a fjord"]}`+"\n"), 0o644)
	r = must(t, mr(t, "", "--bank", bank, "import", "memories", "--accept", g))
	if !strings.Contains(r.stdout, "imported 1 memories as records") {
		t.Fatalf("accept: %s", r.stdout)
	}
	rec := must(t, mr(t, "", "--bank", bank, "export", "records"))
	if !strings.Contains(rec.stdout, `"lemma":"Oslo (City): Has a fjord"`) || !strings.Contains(rec.stdout, `"format":"mcp-memory"`) {
		t.Fatalf("records: %s", rec.stdout)
	}
	// A file of no known shape: one paragraph, nothing written.
	bad := filepath.Join(t.TempDir(), "odd.json")
	os.WriteFile(bad, []byte(`{"x":1}`), 0o644)
	before = exportAll(t, bank)
	if r := mr(t, "", "--bank", bank, "import", "memories", bad); r.code != 1 || !strings.Contains(r.stderr, "tried mem0: ") || !strings.Contains(r.stderr, "letta: ") {
		t.Fatalf("odd file: %+v", r)
	}
	if r := mr(t, "", "--bank", bank, "import", "trajectories", "--format", "nope", bad); r.code != 2 || !strings.Contains(r.stderr, "swe-agent") {
		t.Fatalf("unknown format: %+v", r)
	}
	if exportAll(t, bank) != before {
		t.Fatal("a refused import changed the bank")
	}
	if r := must(t, mr(t, "", "formats")); !strings.Contains(r.stdout, "otel") || !strings.Contains(r.stdout, "letta") {
		t.Fatalf("formats: %s", r.stdout)
	}
}
