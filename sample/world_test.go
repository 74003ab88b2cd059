package sample

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memreview/memreview/probe"
	"github.com/memreview/memreview/review"
)

// TestWorldCoverage checks the world has what the brief promises: every op
// in the queue, every category in the bank, enough trajectories of both
// outcomes, and consistent cross-references.
func TestWorldCoverage(t *testing.T) {
	s := openBank(t, sampleWorld(t))
	queue, err := s.Queue()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	ops := map[review.Op]bool{}
	for _, p := range queue {
		ids = append(ids, p.ID)
		ops[p.Op] = true
		if p.Rationale == "" || p.Trajectory == "" || len(p.Evidence.Steps) == 0 {
			t.Errorf("%s lacks rationale, trajectory or step evidence", p.ID)
		}
	}
	if !slices.Equal(ids, ProposalIDs) {
		t.Errorf("queue order %v, want ProposalIDs %v", ids, ProposalIDs)
	}
	for _, op := range review.Ops {
		if !ops[op] {
			t.Errorf("no %s proposal in the queue", op)
		}
	}
	recs, err := s.Records(review.RecordFilter{})
	if err != nil {
		t.Fatal(err)
	}
	cats := map[review.Category]bool{}
	for _, r := range recs {
		cats[r.Category] = true
		if r.Provenance.Trajectory == "" || r.Provenance.Steps == nil {
			t.Errorf("%s has no provenance", r.ID)
		}
	}
	for _, c := range review.Categories {
		if !cats[c] {
			t.Errorf("no %s record in the bank", c)
		}
	}
	if len(recs) != 30 {
		t.Errorf("%d records, want the 30 the package doc promises", len(recs))
	}
	trajs, err := s.Trajectories()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]review.Trajectory{}
	pass, fail, before := 0, 0, 0
	for _, tr := range trajs {
		byID[tr.ID] = tr
		if tr.Outcome.Passed {
			pass++
		} else {
			fail++
		}
		if tr.Started.Before(Migration) {
			before++
		}
		if tr.Distilled == nil || len(tr.Distilled.Observations) == 0 {
			t.Errorf("%s has no distilled observations", tr.ID)
			continue
		}
		for _, o := range tr.Distilled.Observations {
			if o.Steps.From < 1 || o.Steps.To > len(tr.Steps) || o.Steps.From > o.Steps.To {
				t.Errorf("%s: observation cites steps %d–%d of %d", tr.ID, o.Steps.From, o.Steps.To, len(tr.Steps))
			}
		}
		for _, rid := range tr.Retrieved {
			r, err := s.Record(rid)
			if err != nil {
				t.Errorf("%s retrieved %s: %v", tr.ID, rid, err)
			} else if !r.Created.Before(tr.Started) {
				t.Errorf("%s retrieved %s, created after the task started", tr.ID, rid)
			}
		}
	}
	var broken []string // trajectories whose tool calls hit an error
	for _, tr := range trajs {
		for _, st := range tr.Steps {
			if st.Role == "tool" && strings.HasPrefix(st.Content, "Error:") {
				broken = append(broken, tr.ID)
				break
			}
		}
	}
	if want := []string{"traj_10", "traj_12", "traj_13", "traj_16"}; !slices.Equal(broken, want) {
		t.Errorf("trajectories with failing tool calls: %v, want the post-migration ones %v", broken, want)
	}
	if len(trajs) != 18 || pass == 0 || fail == 0 || before*2 != len(trajs) {
		t.Errorf("%d trajectories (%d passed, %d failed, %d before the migration)", len(trajs), pass, fail, before)
	}
	for _, r := range recs {
		tr, ok := byID[r.Provenance.Trajectory]
		if !ok || r.Provenance.Steps.To > len(tr.Steps) {
			t.Errorf("%s: provenance %s steps %+v does not exist", r.ID, r.Provenance.Trajectory, r.Provenance.Steps)
		}
	}
}

// TestRoles checks each exported id plays the role its doc comment says.
func TestRoles(t *testing.T) {
	s := openBank(t, sampleWorld(t))
	want := map[string]review.Op{
		PropTrajectoryOnly: review.OpCreate, PropOptimise: review.OpCreate, PropAcceptCreate: review.OpCreate,
		PropOvergeneral: review.OpCreate, PropUpdate: review.OpUpdate, PropNarrow: review.OpNarrow,
		PropMerge: review.OpMerge, PropDelete: review.OpDelete, PropSkip: review.OpSkip, PropSkipShop: review.OpSkip,
		PropConflictUpdate: review.OpUpdate, PropConflictDelete: review.OpDelete,
	}
	for id, op := range want {
		p, err := s.Proposal(id)
		if err != nil {
			t.Fatal(err)
		}
		if p.Op != op {
			t.Errorf("%s is a %s proposal, want %s", id, p.Op, op)
		}
	}
	targets := func(id string) []string {
		p, err := s.Proposal(id)
		if err != nil {
			t.Fatal(err)
		}
		return p.TargetIDs()
	}
	for id, tg := range map[string][]string{
		PropConflictUpdate: {RecRefJoin}, PropConflictDelete: {RecRefJoin}, PropDelete: {RecWrong},
		PropNarrow: {RecOvergeneral}, PropMerge: {RecRevenueHeadA, RecRevenueHeadB}, PropUpdate: {RecAttrsG2},
	} {
		if got := targets(id); !slices.Equal(got, tg) {
			t.Errorf("%s targets %v, want %v", id, got, tg)
		}
	}
	env, err := s.ResolveEnv(EnvShop)
	if err != nil {
		t.Fatal(err)
	}
	r := probe.Run(context.Background(), env, OvergeneralRefuteProbe, probe.Limits{})
	if !r.OK() || len(r.Rows) != 1 || fmt.Sprint(r.Rows[0]...) != "1 10" {
		t.Errorf("refuting probe gave %+v, want stars 1..10", r)
	}
}

// TestAcceptAll accepts the queue in order: every proposal applies, except
// the second of the conflicting pair, whose target the first changed.
func TestAcceptAll(t *testing.T) {
	s := openBank(t, sampleWorld(t))
	ctx := context.Background()
	for _, id := range ProposalIDs {
		_, err := s.Decide(ctx, review.DecideRequest{Proposal: id, Verb: review.Accept, Operator: "test"})
		var ce *review.ConflictError
		switch {
		case id == PropConflictDelete:
			if !errors.As(err, &ce) || ce.Record != RecRefJoin {
				t.Errorf("accepting %s after %s: %v, want a conflict on %s", id, PropConflictUpdate, err, RecRefJoin)
			}
		case err != nil:
			t.Errorf("accept %s: %v", id, err)
		}
	}
	if q, err := s.Queue(); err != nil || len(q) != 1 || q[0].ID != PropConflictDelete {
		t.Errorf("queue after accepting everything: %v, %v", q, err)
	}
}

// TestShopFile checks the shop database is a plain rollback-journal file
// with a fixed page size and nothing beside it.
func TestShopFile(t *testing.T) {
	dir := sampleWorld(t)
	b, err := os.ReadFile(filepath.Join(dir, ShopPath))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 100 || string(b[:15]) != "SQLite format 3" {
		t.Fatal("shop.db is not a SQLite database")
	}
	if ps := binary.BigEndian.Uint16(b[16:18]); ps != 4096 || b[18] != 1 || b[19] != 1 {
		t.Errorf("shop.db header: page size %d, write/read versions %d/%d; want 4096, 1/1 (no WAL)", ps, b[18], b[19])
	}
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(filepath.Join(dir, ShopPath+suffix)); err == nil {
			t.Errorf("shop.db%s left behind", suffix)
		}
	}
}

// TestMaterialiseDefault checks the demo bank is generated once under
// XDG_DATA_HOME, kept on the next call and regenerated on reset.
func TestMaterialiseDefault(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	dir, err := MaterialiseDefault(false)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(data, "memreview", "sample"); dir != want {
		t.Fatalf("dir %s, want %s", dir, want)
	}
	marker := filepath.Join(dir, "marker")
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := MaterialiseDefault(false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("second call regenerated the world: %v", err)
	}
	if _, err := MaterialiseDefault(true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("reset kept the old world")
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("%s holds %d entries after reset, want only the sample", filepath.Dir(dir), len(entries))
	}
	s := openBank(t, dir)
	if q, err := s.Queue(); err != nil || len(q) != len(ProposalIDs) {
		t.Errorf("materialised queue: %d proposals, %v", len(q), err)
	}
}
