package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// import trajectories --env names the environment every run worked in
// (issue 23 item 11); a name no environment may have is refused and
// nothing is written.
func TestImportTrajectoriesEnv(t *testing.T) {
	t.Parallel()
	bank := newCLIBank(t)
	f := filepath.Join(t.TempDir(), "runs.jsonl")
	runs := `{"id":"r1","task":"a","steps":[{"role":"user","content":"a"}]}` + "\n" + `{"id":"r2","env":"old","task":"b","steps":[{"role":"user","content":"b"}]}` + "\n"
	if err := os.WriteFile(f, []byte(runs), 0o644); err != nil {
		t.Fatal(err)
	}
	before := exportAll(t, bank)
	if r := mr(t, "", "--bank", bank, "import", "trajectories", "--env", "shop db", f); r.code == 0 || !strings.Contains(r.stderr, "white space") {
		t.Fatalf("--env with a space: %+v", r)
	}
	if exportAll(t, bank) != before {
		t.Fatal("a refused import changed the bank")
	}
	must(t, mr(t, "", "--bank", bank, "import", "trajectories", "--env", "shop", f))
	for _, id := range []string{"r1", "r2"} {
		if r := must(t, mr(t, "", "--bank", bank, "show", id)); !strings.Contains(r.stdout, `"env": "shop"`) {
			t.Fatalf("show %s after --env shop:\n%s", id, r.stdout)
		}
	}
	if r := mr(t, "", "--bank", bank, "import", "trajectories", "--accept", f); r.code != 2 {
		t.Fatalf("--accept for trajectories: %+v", r)
	}
}

// Importing one memory file twice queues nothing the second time, and
// with --accept makes no second record (issue 23 item 24): a memory is
// known by its fingerprint, whatever became of its proposal.
func TestImportMemoriesTwice(t *testing.T) {
	t.Parallel()
	bank := newCLIBank(t)
	f := filepath.Join(t.TempDir(), "export.json")
	mem0 := `[{"id":"m-1","memory":"Prefers aisle seats","user_id":"alice"},{"id":"m-2","memory":"Flies from Oslo","user_id":"alice"},{"id":"m-1","memory":"Prefers aisle seats","user_id":"alice"}]`
	if err := os.WriteFile(f, []byte(mem0), 0o644); err != nil {
		t.Fatal(err)
	}
	r := must(t, mr(t, "", "--bank", bank, "import", "memories", "--accept", f))
	if !strings.Contains(r.stdout, "imported 2 memories as records") || !strings.Contains(r.stdout, "the same memory as "+f+":") {
		t.Fatalf("first import (a repeated line): %s", r.stdout)
	}
	recs := must(t, mr(t, "", "--bank", bank, "export", "records")).stdout
	for _, again := range [][]string{{"--accept"}, nil} {
		r := must(t, mr(t, "", append(append([]string{"--bank", bank, "import", "memories"}, again...), f)...))
		if !strings.Contains(r.stdout, "already in the bank as prop_") || !strings.Contains(r.stdout, "(accepted)") || !strings.Contains(r.stdout, "3 memories were already in the bank or repeated") {
			t.Fatalf("import again %v: %s", again, r.stdout)
		}
	}
	if got := must(t, mr(t, "", "--bank", bank, "export", "records")).stdout; got != recs {
		t.Fatalf("a second import changed the records:\n%s", got)
	}
	if q := must(t, mr(t, "", "--bank", bank, "queue")).stdout; !strings.Contains(q, "0 open proposals") {
		t.Fatalf("queue after importing twice:\n%s", q)
	}
	if n := strings.Count(recs, `"lemma":"Prefers aisle seats"`); n != 1 {
		t.Fatalf("%d records say the same memory", n)
	}
}
