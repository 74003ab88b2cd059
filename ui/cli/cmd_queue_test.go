package cli

import (
	"fmt"
	"strings"
	"testing"
)

// One wide merge does not pad every row of 'queue' to its target list
// (issue 23 item 24): a row shows two targets and how many more.
func TestQueueRowsAreNotPaddedToTheWidestTargets(t *testing.T) {
	t.Parallel()
	bank := newCLIBank(t)
	var recs, ids []string
	for i := range 12 {
		id := fmt.Sprintf("mem_w%02d", i)
		ids = append(ids, `{"id":"`+id+`"}`)
		recs = append(recs, `{"id":"`+id+`","lemma":"wide fact `+id+`","category":"fact","confidence":0.5,"status":"active"}`)
	}
	must(t, mr(t, strings.Join(recs, "\n")+"\n", "--bank", bank, "import", "records", "-"))
	props := `{"op":"merge","targets":[` + strings.Join(ids, ",") + `],"rationale":"r","record":{"lemma":"all of them","category":"fact","confidence":0.5}}
{"op":"create","rationale":"r","record":{"lemma":"a short one","category":"fact","confidence":0.5}}
`
	must(t, mr(t, props, "--bank", bank, "import", "proposals", "-"))
	q := must(t, mr(t, "", "--bank", bank, "queue")).stdout
	var create, merge string
	for _, l := range strings.Split(q, "\n") {
		switch {
		case strings.Contains(l, " create "):
			create = l
		case strings.Contains(l, " merge "):
			merge = l
		}
	}
	if !strings.Contains(merge, "mem_w00,mem_w01 +10 more") {
		t.Errorf("merge row: %q", merge)
	}
	if i := strings.Index(create, "a short one"); i < 0 || i > 60 {
		t.Errorf("the create row's lemma starts at column %d: %q", i, create)
	}
}
