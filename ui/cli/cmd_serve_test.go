package cli

import (
	"strings"
	"testing"
)

// import proposals and memory_propose share review.CheckProposalsInBank:
// a proposal citing steps outside its trajectory, or changing a retired
// record, is refused by import with the file, line and field, and nothing
// is imported. (The MCP side is tested in ui/mcpserver.)
func TestImportProposalsChecksTrajectoryStepsAndRetiredTargets(t *testing.T) {
	bank := newCLIBank(t)
	must(t, mr(t, `{"id":"traj_a","task":"t","steps":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]}`,
		"--bank", bank, "import", "trajectories", "-"))
	must(t, mr(t, `{"id":"prop_del","op":"delete","rationale":"r","targets":[{"id":"mem_2"}]}`, "--bank", bank, "import", "proposals", "-"))
	must(t, mr(t, "", "--bank", bank, "decide", "prop_del", "delete"))
	before := exportAll(t, bank)
	for _, c := range []struct{ line, want string }{
		{`{"op":"create","rationale":"r","trajectory":"traj_a","evidence":{"steps":[{"from":1,"to":5}]},"record":{"lemma":"x","category":"fact","confidence":0.5}}`,
			`<stdin>:2: field "evidence.steps[0]": steps 1..5 are outside trajectory traj_a`},
		{`{"op":"create","rationale":"r","trajectory":"traj_zz","record":{"lemma":"x","category":"fact","confidence":0.5}}`,
			`<stdin>:2: field "trajectory": no trajectory "traj_zz"`},
		{`{"op":"update","rationale":"r","targets":[{"id":"mem_2"}],"record":{"id":"mem_2","lemma":"x","category":"fact","confidence":0.5}}`,
			`<stdin>:2: field "targets[0].id": record "mem_2" is retired`},
	} {
		ok := `{"op":"skip","rationale":"fine","targets":[{"id":"mem_1"}]}`
		r := mr(t, ok+"\n"+c.line+"\n", "--bank", bank, "import", "proposals", "-")
		if r.code != 1 || !strings.Contains(r.stderr, c.want) {
			t.Fatalf("import: exit %d %q, want %q", r.code, r.stderr, c.want)
		}
	}
	if after := exportAll(t, bank); after != before {
		t.Fatal("a refused import changed the bank")
	}
}
