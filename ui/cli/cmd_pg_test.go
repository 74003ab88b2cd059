package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memreview/memreview/review/store/pg/pgtest"
	"github.com/memreview/memreview/sample"
)

// A team moves its SQLite bank to PostgreSQL: migrate copies it whole and
// checks every table; then the CLI works on the PostgreSQL bank as on the
// directory — queue, decide (with the conflict for the second operator),
// search through the local index under $XDG_CACHE_HOME, probes through
// the operator's own memreview.toml.
func TestMigrateToPostgresAndUseIt(t *testing.T) {
	url := pgtest.NewDB(t) // the package's server (TestMain runs through pgtest.Main)
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	world := filepath.Join(t.TempDir(), "world")
	sampleWorld(t, world)
	must(t, mr(t, "", "--bank", world, "decide", "--note", "not now", sample.ProposalIDs[0], "reject"))
	must(t, mr(t, "", "--bank", world, "retrieve", "--task-id", "traj_07", "count reviewed items"))
	must(t, mr(t, "", "--bank", world, "--operator", "alice", "claim", sample.ProposalIDs[2]))

	out := must(t, mr(t, "", "migrate", "--from", world, "--to", url)).stdout
	for _, want := range []string{"records          30", "decisions        1", "retrieval_log    1", "claims           1", "every table matches", "wrote 2 environments"} {
		if !strings.Contains(out, want) {
			t.Fatalf("migrate output lacks %q:\n%s", want, out)
		}
	}
	if r := mr(t, "", "migrate", "--from", world, "--to", url); r.code == 0 || !strings.Contains(r.stderr, "not empty") {
		t.Fatalf("second migrate into the same database: exit %d, %s; want a refusal", r.code, r.stderr)
	}
	if a, b := exportAll(t, world), exportAll(t, url); a != b {
		t.Fatalf("the PostgreSQL bank exports differently from the SQLite one:\n%s\n---\n%s", a, b)
	}

	if q := must(t, mr(t, "", "--bank", url, "queue")).stdout; !strings.Contains(lineWith(q, sample.ProposalIDs[2]), "being reviewed by alice") {
		t.Fatalf("the claim did not travel:\n%s", q)
	}
	must(t, mr(t, "", "--bank", url, "decide", sample.ProposalIDs[1], "reject"))
	if r := mr(t, "", "--bank", url, "decide", sample.ProposalIDs[1], "accept"); r.code != 1 || !strings.Contains(r.stderr, "conflict: proposal "+sample.ProposalIDs[1]+" was already decided") {
		t.Fatalf("second decision: exit %d, %s; want the conflict", r.code, r.stderr)
	}
	var res struct{ Hits []struct{ ID string } }
	if err := json.Unmarshal([]byte(must(t, mr(t, "", "--bank", url, "search", "--json", "fdbk_g1")).stdout), &res); err != nil || len(res.Hits) == 0 || res.Hits[0].ID != "mem_0007" {
		t.Fatalf("search on the PostgreSQL bank: %+v %v, want mem_0007 first", res, err)
	}
	var idx []string
	all, _ := filepath.Glob(filepath.Join(home, "cache", "memreview", "pg-*"))
	for _, p := range all {
		// pg-*.lock is the index's build lock, pg-*.vectors its vector side.
		if fi, err := os.Stat(p); err == nil && fi.IsDir() && !strings.HasSuffix(p, ".vectors") {
			idx = append(idx, p)
		}
	}
	if len(idx) != 1 {
		t.Fatalf("local index folders %v, want one under $XDG_CACHE_HOME/memreview/<bank id>", idx)
	}
	if p := must(t, mr(t, "", "--bank", url, "probe", "shop", "SELECT count(*) FROM items_g1")).stdout; !strings.Contains(p, "120") {
		t.Fatalf("probe through the operator's environments: %s", p)
	}
}
