package review

import "testing"

func TestRecordClone(t *testing.T) {
	r := &Record{ID: "mem_1", Scope: Scope{Tags: []string{"a"}}, Steps: []string{"s"},
		Checks: []Check{{Env: "shop", Input: "SELECT 1"}}, Provenance: Provenance{ProbeRuns: []string{"run_1"},
			MergedFrom: []string{"mem_2"}, Steps: &StepRange{From: 1, To: 2}}}
	c := r.Clone()
	c.Scope.Tags[0], c.Steps[0], c.Checks[0].Input = "x", "x", "x"
	c.Provenance.ProbeRuns[0], c.Provenance.MergedFrom[0], c.Provenance.Steps.To = "x", "x", 9
	if r.Scope.Tags[0] != "a" || r.Steps[0] != "s" || r.Checks[0].Input != "SELECT 1" ||
		r.Provenance.ProbeRuns[0] != "run_1" || r.Provenance.MergedFrom[0] != "mem_2" || r.Provenance.Steps.To != 2 {
		t.Errorf("the clone shares memory with the record: %+v", r)
	}
}
