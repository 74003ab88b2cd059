package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memreview/memreview/sample"
)

// hygiene on the sample world queues its seven findings once; a second run
// queues none; show gives a record's worth; a bad --only is a usage error.
func TestCLIHygiene(t *testing.T) {
	bank := filepath.Join(t.TempDir(), "bank")
	rawWorldTemplate.CopyTo(t, bank)
	dry := must(t, mr(t, "", "--bank", bank, "hygiene", "--dry-run"))
	if !strings.Contains(dry.stdout, "7 findings, 0 queued") {
		t.Fatalf("dry run: %s", dry.stdout)
	}
	first := must(t, mr(t, "", "--bank", bank, "hygiene", "--json"))
	var out struct {
		Queued []struct {
			ID, Source, Op string
		} `json:"queued"`
	}
	if err := json.Unmarshal([]byte(first.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Queued) != 7 {
		t.Fatalf("queued %d proposals, want 7", len(out.Queued))
	}
	for _, p := range out.Queued {
		if p.Source != "hygiene" || p.ID == "" {
			t.Errorf("queued %+v: want source hygiene and an id", p)
		}
	}
	again := must(t, mr(t, "", "--bank", bank, "hygiene"))
	if !strings.Contains(again.stdout, "7 findings, 0 queued") || !strings.Contains(again.stdout, "already open as "+out.Queued[0].ID) {
		t.Errorf("second run: %s", again.stdout)
	}
	// A finding the operator rejected is not queued again while its
	// records are unchanged (issue 23 item 24).
	rejected := out.Queued[0].ID
	openBefore := strings.Count(must(t, mr(t, "", "--bank", bank, "queue")).stdout, "\n")
	must(t, mr(t, "", "--bank", bank, "decide", "--note", "not duplicates", rejected, "reject"))
	third := must(t, mr(t, "", "--bank", bank, "hygiene"))
	if !strings.Contains(third.stdout, "7 findings, 0 queued") || !strings.Contains(third.stdout, "rejected as "+rejected) {
		t.Errorf("run after a rejection: %s", third.stdout)
	}
	if q := must(t, mr(t, "", "--bank", bank, "queue")).stdout; strings.Count(q, "\n") != openBefore-1 || strings.Contains(q, rejected) {
		t.Errorf("queue after the rejection and a run:\n%s", q)
	}
	// --incremental after that full run compares only what changed since:
	// the rejection changed no record, so nothing.
	incr := must(t, mr(t, "", "--bank", bank, "hygiene", "--incremental"))
	if !strings.Contains(incr.stdout, "incremental: 0 changed records compared") || !strings.Contains(incr.stdout, "0 findings, 0 queued") {
		t.Errorf("incremental run with nothing changed: %s", incr.stdout)
	}
	show := must(t, mr(t, "", "--bank", bank, "show", sample.RecRevenueHeadA))
	if !strings.Contains(show.stdout, "worth        retrieved by 3 tasks: 2 passed, 1 failed; the bank over the same period") {
		t.Errorf("show: no worth line:\n%s", show.stdout)
	}
	if r := mr(t, "", "--bank", bank, "hygiene", "--only", "bogus"); r.code != 2 || !strings.Contains(r.stderr, "bogus") {
		t.Errorf("--only bogus: exit %d, stderr %q", r.code, r.stderr)
	}
}
