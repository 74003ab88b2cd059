package sample

import (
	"fmt"
	"time"

	"github.com/memreview/memreview/review"
)

// Probe inputs shared by trajectories, records and proposals.
const (
	trajOnlyProbe  = "SELECT COUNT(DISTINCT i.item_id) FROM items_g2 i JOIN fdbk_g2 f ON f.ref_id = i.item_id JOIN attrs_g2 a ON a.item_id = i.item_id WHERE a.connectivity = 'Bluetooth'"
	starsProbeG1   = "SELECT MIN(stars), MAX(stars) FROM fdbk_g1"
	splitProbe     = "SELECT name, sql FROM sqlite_master WHERE name LIKE 'attrs_g2%' ORDER BY name"
	topBrandsG2    = "SELECT i.brand, COUNT(*) AS reviews FROM fdbk_g2 f JOIN items_g2 i ON f.ref_id = i.item_id GROUP BY i.brand ORDER BY reviews DESC, i.brand LIMIT 3"
	nullVotesProbe = "SELECT MIN(posted_on), MAX(posted_on), COUNT(*) FROM fdbk_g2 WHERE helpful_votes IS NULL"
)

// Curator runs that made the queue: one before the migration, one after.
const (
	curatorRunPre  = "cur_20260313"
	curatorRunPost = "cur_20260327"
)

// propSpec is a proposal before its probes are run.
type propSpec struct {
	id        string
	op        review.Op
	targets   []string
	rec       *recSpec
	rationale string
	traj      string
	steps     []review.StepRange
	probes    []chk
	errorOK   bool // its probes record an error on purpose
}

func steps(from, to int) []review.StepRange { return []review.StepRange{{From: from, To: to}} }

var propSpecs = []propSpec{
	{id: PropTrajectoryOnly, op: review.OpCreate, traj: "traj_07", steps: steps(5, 6), probes: []chk{{envPre, trajOnlyProbe}},
		rec: &recSpec{cat: review.Procedure, lemma: "To count reviewed electronics with a given connectivity, join fdbk_g2 → items_g2 on ref_id and attrs_g2 on item_id, then COUNT(DISTINCT i.item_id).", tags: []string{"g2", "attributes"}, family: shopFam,
			trigger: "Counting reviewed electronics by connectivity.", steps: []string{"fdbk_g2 f JOIN items_g2 i ON f.ref_id = i.item_id", "JOIN attrs_g2 a ON a.item_id = i.item_id", "COUNT(DISTINCT i.item_id)"}, conf: 0.8},
		rationale: "traj_07 passed with this query (steps 5–6). Replayed from the trajectory; no live probe was run before proposing."},
	{id: PropOptimise, op: review.OpCreate, traj: "traj_03", steps: steps(7, 8), probes: []chk{{envPre, "SELECT ROUND(AVG(price_cents) / 100.0, 2) FROM items_g2 WHERE item_id IN (SELECT item_id FROM attrs_g2 WHERE warranty_months >= 24)"}},
		rec:       &recSpec{cat: review.Optimisation, lemma: "For warranty filters, use item_id IN (SELECT item_id FROM attrs_g2 WHERE warranty_months >= N) instead of a join; same answer, and the agent writes one table alias less.", tags: []string{"g2", "warranty"}, family: shopFam, conf: 0.6},
		rationale: "Probe confirms the subquery form returns the same average as the join traj_03 used."},
	{id: PropUnitsUpdate, op: review.OpUpdate, targets: []string{RecGBP}, traj: "traj_08", steps: steps(3, 7), probes: []chk{{EnvDocs, "grep thousands pnl_fy2024.md"}},
		rec: &recSpec{cat: review.Convention, lemma: "Money in the finance workbooks is GBP: revenue_by_site.csv in whole pounds, pnl_fy2024.md in £ thousands (£k). Convert before dividing one by the other.", tags: []string{"units"}, family: docsFam,
			trigger: "A computation uses figures from more than one workbook.", conf: 0.9},
		rationale: "traj_08 failed by dividing £k operating profit by revenue in pounds; mem_0021 told it every workbook was in whole pounds. The P&L header says £ thousands."},
	{id: PropSkip, op: review.OpSkip, traj: "traj_09", steps: steps(3, 7),
		rationale: "traj_09 followed mem_0017 and mem_0022 and passed; nothing to add or change."},
	{id: PropConflictUpdate, op: review.OpUpdate, targets: []string{RecRefJoin}, traj: "traj_11", steps: []review.StepRange{{From: 3, To: 6}, {From: 9, To: 10}},
		probes: []chk{{EnvShop, "SELECT COUNT(*) FROM fdbk_g1 f JOIN items_g1 i ON f.item_ref = i.item_id"}, {EnvShop, "SELECT version, applied_on, note FROM schema_migrations ORDER BY version"}},
		rec: &recSpec{cat: review.Relation, lemma: "In shop.db, reviews join items on fdbk_g1.item_ref = items_g1.item_id (renamed from ref_id on 2026-03-16; g2 and g3 still use ref_id).", tags: []string{"g1", "join"}, family: shopFam,
			trigger: "A task combines office-product reviews with item data.", conf: 0.95},
		rationale: "mem_0001's column was renamed by schema migration 2; the join on item_ref returns every review, as ref_id did before."},
	{id: PropConflictDelete, op: review.OpDelete, targets: []string{RecRefJoin}, traj: "traj_10", steps: steps(3, 7),
		probes: []chk{{EnvShop, "SELECT COUNT(*) FROM fdbk_g1 f JOIN items_g1 i ON f.ref_id = i.item_id"}}, errorOK: true,
		rationale: "mem_0001 sent traj_10 to a column that no longer exists (no such column: f.ref_id) and the task failed. Delete it."},
	{id: PropOvergeneral, op: review.OpCreate, traj: "traj_11", steps: steps(7, 10), probes: []chk{{EnvShop, starsProbeG1}},
		rec: &recSpec{cat: review.Fact, lemma: "Review stars are integers from 1 to 5 in every fdbk_gN table; average them directly.", tags: []string{"ratings"}, family: shopFam,
			trigger: "Any star-rating average.", conf: 0.85},
		rationale: "traj_11 checked the star scale (steps 7–8): 1 to 5. Averaging directly is safe."},
	{id: PropUpdate, op: review.OpUpdate, targets: []string{RecAttrsG2}, traj: "traj_13", steps: steps(3, 6), probes: []chk{{EnvShop, splitProbe}},
		rec: &recSpec{cat: review.Fact, lemma: "Electronics attributes are split across attrs_g2_core (item_id, color, weight_g) and attrs_g2_ext (item_id, warranty_months, connectivity) since 2026-03-16; attrs_g2 no longer exists.", tags: []string{"g2", "attributes"}, family: shopFam,
			trigger: "A task filters electronics by warranty, weight or connectivity.", conf: 0.95},
		rationale: "traj_13 hit 'no such table: attrs_g2' and found the two replacement tables; the probe lists them."},
	{id: PropUpdateProc, op: review.OpUpdate, targets: []string{RecWarrantyProc}, traj: "traj_13", steps: steps(5, 8), probes: []chk{{EnvShop, "SELECT ROUND(AVG(i.price_cents) / 100.0, 2) FROM items_g2 i JOIN attrs_g2_ext e ON e.item_id = i.item_id WHERE e.warranty_months >= 24"}},
		rec: &recSpec{cat: review.Procedure, lemma: "To price electronics by warranty, join items_g2 to attrs_g2_ext on item_id, filter warranty_months, and average price_cents / 100.0.", tags: []string{"g2", "price", "warranty"}, family: shopFam,
			trigger: "Average or total price of electronics with a warranty condition.", steps: []string{"Join items_g2 i to attrs_g2_ext e on e.item_id = i.item_id", "Filter e.warranty_months", "ROUND(AVG(i.price_cents) / 100.0, 2)"}, conf: 0.9},
		rationale: "traj_12 failed on mem_0005's attrs_g2 join; warranty_months moved to attrs_g2_ext. The probe gives the average traj_12 should have reported."},
	{id: PropAcceptCreate, op: review.OpCreate, traj: "traj_13", steps: steps(7, 8), probes: []chk{{EnvShop, "SELECT (SELECT COUNT(*) FROM attrs_g2_core), (SELECT COUNT(*) FROM attrs_g2_ext), (SELECT COUNT(*) FROM attrs_g2_core c JOIN attrs_g2_ext e ON e.item_id = c.item_id)"}},
		rec: &recSpec{cat: review.Relation, lemma: "attrs_g2_core and attrs_g2_ext have exactly one row per electronics item and join one-to-one on item_id.", tags: []string{"g2", "attributes", "join"}, family: shopFam,
			trigger: "Combining electronics weight or color with warranty or connectivity.", conf: 0.9},
		rationale: "traj_13 joined the two tables; the probe shows equal row counts and a complete one-to-one join."},
	{id: PropDelete, op: review.OpDelete, targets: []string{RecWrong}, traj: "traj_12", steps: steps(5, 6), probes: []chk{{EnvShop, "SELECT MIN(price_cents), MAX(price_cents), SUM(price_cents % 100 <> 0) AS not_whole_dollars, COUNT(*) FROM items_g1"}},
		rationale: "mem_0003 contradicts mem_0002 and the data: price_cents holds values with non-zero cents. It came from traj_02, which failed for exactly this assumption."},
	{id: PropNarrow, op: review.OpNarrow, targets: []string{RecOvergeneral}, traj: "traj_16", steps: steps(3, 6), probes: []chk{{EnvShop, "SELECT name, sql FROM sqlite_master WHERE name IN ('fdbk_g2', 'fdbk_g3') ORDER BY name"}},
		rec: &recSpec{cat: review.Fact, lemma: "Office-product reviews carry a verified flag (fdbk_g1.verified, 1 = verified purchase); fdbk_g2 and fdbk_g3 have none.", tags: []string{"g1", "ratings", "verified"}, family: shopFam,
			trigger: "A task about verified reviews of office products (g1).", conf: 0.9},
		rationale: "traj_16 applied mem_0015 to electronics and failed: only fdbk_g1 has a verified column."},
	{id: PropMerge, op: review.OpMerge, targets: []string{RecRevenueHeadA, RecRevenueHeadB}, traj: "traj_17", steps: steps(3, 8), probes: []chk{{EnvDocs, "read notes/methodology.md"}},
		rec: &recSpec{cat: review.Procedure, lemma: "Revenue per head (per employee, per FTE): revenue_by_site.csv revenue for the period divided by the average FTE from headcount.csv over the same months; map site names to codes via sites.md.", tags: []string{"revenue", "headcount"}, family: docsFam,
			trigger: "Revenue per head, per employee or per FTE.", steps: []string{"Look up the site's code in sites.md", "Sum revenue_gbp over the period's months", "Average fte over the same months and code", "Divide"}, conf: 0.95},
		rationale: "mem_0017 and mem_0018 describe the same computation in different words; traj_17 retrieved both. The methodology note defines the quarterly case."},
	{id: PropQuarterCreate, op: review.OpCreate, traj: "traj_17", steps: steps(3, 4), probes: []chk{{EnvDocs, "grep quarter notes/methodology.md"}},
		rec: &recSpec{cat: review.Procedure, lemma: "For a quarter, revenue per head is the sum of the three months' revenue divided by the mean of the three month-end FTE figures, not the sum of monthly ratios.", tags: []string{"revenue", "headcount", "quarter"}, family: docsFam,
			trigger: "Revenue per head for a quarter or year.", conf: 0.9},
		rationale: "traj_17 read the methodology note before computing Q1 and passed."},
	{id: PropSkipShop, op: review.OpSkip, traj: "traj_18", steps: steps(3, 6),
		rationale: "traj_18 used mem_0012's advice and the item_ref join; nothing new beyond the pending update of mem_0001."},
}

// queued is one proposal and the probe runs it cites.
type queued struct {
	prop review.Proposal
	runs []review.ProbeRun
}

// proposals runs each proposal's probes and returns the queue in order.
// The first four were made by the curator run before the migration.
func (w *world) proposals() []queued {
	var out []queued
	nrun := 0
	for i, sp := range propSpecs {
		created, run := at(13, 8, 0).Add(time.Duration(i)*3*time.Minute), curatorRunPre
		if i >= 4 {
			created, run = at(27, 7, 0).Add(time.Duration(i)*3*time.Minute), curatorRunPost
		}
		p := review.Proposal{ID: sp.id, Op: sp.op, Rationale: sp.rationale, Trajectory: sp.traj, CuratorRun: run,
			Evidence: review.Evidence{Steps: sp.steps}, Status: review.Pending, Created: created}
		for _, id := range sp.targets {
			p.Targets = append(p.Targets, review.Target{ID: id, Version: 1})
		}
		if sp.rec != nil {
			r := sp.rec
			first := sp.steps[0]
			id := ""
			if len(sp.targets) == 1 && sp.op != review.OpMerge {
				id = sp.targets[0]
			}
			p.Record = &review.Record{ID: id, Lemma: r.lemma, Category: r.cat, Trigger: r.trigger, Steps: r.steps,
				Scope:      review.Scope{Env: r.env(), Tags: r.tags, TaskFamily: r.family},
				Confidence: r.conf, Priority: 1, Status: review.Active,
				Provenance: review.Provenance{Trajectory: sp.traj, Steps: &first, MergedFrom: mergedFrom(sp)}}
		}
		q := queued{prop: p}
		for j, c := range sp.probes {
			nrun++
			res := w.probe(c.env, c.input)
			if !res.OK() && !sp.errorOK {
				w.fail(fmt.Errorf("probe of %s: %s", sp.id, res.Error))
			}
			rid := fmt.Sprintf("run_%04d", nrun)
			q.runs = append(q.runs, review.ProbeRun{ID: rid, Result: res, At: created.Add(time.Duration(j-len(sp.probes)) * time.Minute / 2), Actor: "curator " + run})
			q.prop.Evidence.ProbeRuns = append(q.prop.Evidence.ProbeRuns, rid)
			if q.prop.Record != nil {
				q.prop.Record.Provenance.ProbeRuns = append(q.prop.Record.Provenance.ProbeRuns, rid)
				if j == 0 && res.OK() {
					q.prop.Record.Checks = append(q.prop.Record.Checks, review.Check{Env: res.Env, Input: c.input, Expect: res})
				}
			}
		}
		out = append(out, q)
	}
	return out
}

func mergedFrom(sp propSpec) []string {
	if sp.op == review.OpMerge {
		return sp.targets
	}
	return nil
}

func errUnknown(kind, id, by string) error {
	return fmt.Errorf("%s names unknown %s %s", by, kind, id)
}
