package review

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckProposalsInBank(t *testing.T) {
	s := NewBank(t)
	retired := Record{ID: "mem_old", Lemma: "gone", Category: Fact, Status: Retired}
	if err := s.PutRecords([]Record{retired}, "test", "fixture"); err != nil {
		t.Fatal(err)
	}
	traj := Trajectory{ID: "traj_1", Task: "t", Steps: []Step{{Role: "user", Content: "a"}, {Role: "assistant", Content: "b"}, {Role: "tool", Content: "c"}}}
	if err := s.PutTrajectories([]Trajectory{traj}); err != nil {
		t.Fatal(err)
	}
	rec := func() *Record { return &Record{Lemma: "a lesson", Category: Fact, Confidence: 0.5} }
	cases := []struct {
		name  string
		p     Proposal
		field string // "" = valid
	}{
		{"valid create citing steps", Proposal{Op: OpCreate, Record: rec(), Trajectory: "traj_1", Evidence: Evidence{Steps: []StepRange{{1, 3}}}}, ""},
		{"skip of a retired record", Proposal{Op: OpSkip, Targets: []Target{{ID: "mem_old"}}}, ""},
		{"unknown target", Proposal{Op: OpDelete, Targets: []Target{{ID: "mem_a"}, {ID: "mem_zz"}}}, "targets[1].id"},
		{"retired target", Proposal{Op: OpUpdate, Targets: []Target{{ID: "mem_old"}}, Record: rec()}, "targets[0].id"},
		{"steps past the end", Proposal{Op: OpCreate, Record: rec(), Trajectory: "traj_1", Evidence: Evidence{Steps: []StepRange{{2, 4}}}}, "evidence.steps[0]"},
		{"provenance steps past the end", Proposal{Op: OpCreate, Record: &Record{Lemma: "x", Category: Fact, Provenance: Provenance{Trajectory: "traj_1", Steps: &StepRange{3, 7}}}}, "record.provenance.steps"},
		{"unknown trajectory", Proposal{Op: OpCreate, Record: rec(), Trajectory: "traj_9"}, "trajectory"},
		{"steps without a trajectory", Proposal{Op: OpCreate, Record: rec(), Evidence: Evidence{Steps: []StepRange{{1, 1}}}}, "evidence.steps[0]"},
		{"bad shape still caught", Proposal{Op: OpCreate}, "record"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckProposalsInBank("props.jsonl", []Proposal{c.p}, []int{7}, s)
			if c.field == "" {
				if err != nil {
					t.Fatalf("refused a valid proposal: %v", err)
				}
				return
			}
			var ie *InputError
			if !errors.As(err, &ie) || ie.Field != c.field || ie.Line != 7 || ie.File != "props.jsonl" {
				t.Fatalf("err = %v, want an InputError at props.jsonl:7 on field %q", err, c.field)
			}
			if !strings.HasPrefix(err.Error(), `props.jsonl:7: field "`+c.field+`"`) {
				t.Fatalf("message %q", err)
			}
		})
	}
}
