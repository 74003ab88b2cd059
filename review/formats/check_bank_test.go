package formats

import (
	"errors"
	"strings"
	"testing"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
)

func TestCheckProposalsInBank(t *testing.T) {
	s, err := store.Create(t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	active := review.Record{ID: "mem_a", Lemma: "reviews join items on fdbk_g1.ref_id = items_g1.item_id", Category: review.Relation, Scope: review.Scope{Env: "shop"}, Confidence: 0.9}
	if err := s.PutRecords([]review.Record{active}, "test", "fixture"); err != nil {
		t.Fatal(err)
	}
	retired := review.Record{ID: "mem_old", Lemma: "gone", Category: review.Fact, Status: review.Retired}
	if err := s.PutRecords([]review.Record{retired}, "test", "fixture"); err != nil {
		t.Fatal(err)
	}
	traj := review.Trajectory{ID: "traj_1", Task: "t", Steps: []review.Step{{Role: "user", Content: "a"}, {Role: "assistant", Content: "b"}, {Role: "tool", Content: "c"}}}
	if err := s.PutTrajectories([]review.Trajectory{traj}); err != nil {
		t.Fatal(err)
	}
	rec := func() *review.Record {
		return &review.Record{Lemma: "a lesson", Category: review.Fact, Confidence: 0.5}
	}
	cases := []struct {
		name  string
		p     review.Proposal
		field string // "" = valid
	}{
		{"valid create citing steps", review.Proposal{Op: review.OpCreate, Record: rec(), Trajectory: "traj_1", Evidence: review.Evidence{Steps: []review.StepRange{{From: 1, To: 3}}}}, ""},
		{"skip of a retired record", review.Proposal{Op: review.OpSkip, Targets: []review.Target{{ID: "mem_old"}}}, ""},
		{"unknown target", review.Proposal{Op: review.OpDelete, Targets: []review.Target{{ID: "mem_a"}, {ID: "mem_zz"}}}, "targets[1].id"},
		{"retired target", review.Proposal{Op: review.OpUpdate, Targets: []review.Target{{ID: "mem_old"}}, Record: rec()}, "targets[0].id"},
		{"steps past the end", review.Proposal{Op: review.OpCreate, Record: rec(), Trajectory: "traj_1", Evidence: review.Evidence{Steps: []review.StepRange{{From: 2, To: 4}}}}, "evidence.steps[0]"},
		{"provenance steps past the end", review.Proposal{Op: review.OpCreate, Record: &review.Record{Lemma: "x", Category: review.Fact, Provenance: review.Provenance{Trajectory: "traj_1", Steps: &review.StepRange{From: 3, To: 7}}}}, "record.provenance.steps"},
		{"unknown trajectory", review.Proposal{Op: review.OpCreate, Record: rec(), Trajectory: "traj_9"}, "trajectory"},
		{"steps without a trajectory", review.Proposal{Op: review.OpCreate, Record: rec(), Evidence: review.Evidence{Steps: []review.StepRange{{From: 1, To: 1}}}}, "evidence.steps[0]"},
		{"bad shape still caught", review.Proposal{Op: review.OpCreate}, "record"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckProposalsInBank("props.jsonl", []review.Proposal{c.p}, []int{7}, s)
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
