// Package sample builds memreview's demo world: a small bank, its queue and
// the environments its probes run against, generated deterministically by
// Go code from a seed. `go run .` opens the TUI on it, and the UI and
// curator tests use it as their fixture.
//
// The world models a published evaluation setting. Environment "shop" is an
// e-commerce SQLite database in the style of a database-exploration
// benchmark: three product groups (g1 office products, g2 electronics, g3
// musical instruments) in items_gN, fdbk_gN (reviews, prices in cents) and
// attrs_gN tables. Halfway through the task sequence a schema migration
// renamed fdbk_g1.ref_id to fdbk_g1.item_ref and split attrs_g2 into
// attrs_g2_core and attrs_g2_ext; the environment holds the migrated
// database, so memories and probes recorded before it no longer hold.
// Environment "docs" is a folder of finance workbooks (site revenue,
// headcount, a company P&L) whose tasks need cross-file computations.
//
// The task set tasks/shop-drift.jsonl (TasksPath) is what memreview eval
// replays: 40 shop tasks in the shape of that benchmark, graded by probes,
// the first DriftAfter on tables the migration left alone and the rest on
// the ones it changed.
//
// The bank holds 30 records (every category), 18 trajectories (nine before
// the migration, nine after; passes and failures) and a queue of 15
// pending proposals (every op) made by two curator runs, one before the
// migration and one after.
//
// Well-known ids, for tests of other packages:
//
//   - Records: [StaleRecords] (checks recorded on the pre-migration database
//     that fail now; exactly what verify flags), [RecWrong] (plainly wrong:
//     "prices are stored in dollars"), [RecOvergeneral] (holds for g1 only),
//     [RecRevenueHeadA]/[RecRevenueHeadB] and [RecCentsA]/[RecCentsB]
//     (near-duplicate pairs), [RecRefJoin] (the stale join both conflicting
//     proposals target).
//   - Proposals, one per role: [PropAcceptCreate] (a create whose probe
//     reproduces), [PropUpdate], [PropNarrow], [PropMerge], [PropDelete],
//     [PropSkip], [PropTrajectoryOnly] (made before the migration from the
//     trajectory alone; its recorded probe fails now), [PropOvergeneral]
//     (a create that [OvergeneralRefuteProbe] on g3 refutes), and the
//     conflicting pair [PropConflictUpdate]/[PropConflictDelete], which
//     both target [RecRefJoin]: deciding one changes the other's target.
//   - [FailingNowProposals]: the open proposals whose recorded probe runs do
//     not reproduce against the current environments ([PropTrajectoryOnly]
//     and [PropOptimise]); every other recorded probe reproduces ("same").
//   - [ProposalIDs]: the whole queue in queue order.
package sample

import (
	"sync"
	"time"
)

// Seed is the seed of the default demo world.
const Seed = 1

// Environment names in the sample bank's memreview.toml.
const (
	EnvShop = "shop" // sql: envs/shop.db
	EnvDocs = "docs" // files: envs/docs
)

// Record ids with a role in tests.
const (
	RecRefJoin      = "mem_0001" // relation: fdbk_g1.ref_id join; stale since the migration
	RecWrong        = "mem_0003" // fact: "prices are stored in dollars" — plainly wrong
	RecAttrsG2      = "mem_0004" // fact: attrs_g2 columns; stale (table was split)
	RecWarrantyProc = "mem_0005" // procedure: warranty via attrs_g2; stale
	RecStarsG3      = "mem_0006" // warning: fdbk_g3 stars are 1–10
	RecOvergeneral  = "mem_0015" // fact: "reviews carry a verified flag" — true for g1 only
	RecRevenueHeadA = "mem_0017" // procedure: revenue per head (near-duplicate of B)
	RecRevenueHeadB = "mem_0018" // procedure: revenue per employee (near-duplicate of A)
	RecCentsA       = "mem_0002" // convention: prices in cents (near-duplicate of B)
	RecCentsB       = "mem_0023" // convention: prices in cents, reworded (near-duplicate of A)
	RecConnectivity = "mem_0027" // relation: attrs_g2.connectivity; stale
)

// StaleRecords are the records whose checks were recorded on the
// pre-migration database and fail against the current one, sorted.
var StaleRecords = []string{RecRefJoin, RecAttrsG2, RecWarrantyProc, RecConnectivity}

// Proposal ids with a role in tests, in queue order.
const (
	PropTrajectoryOnly = "prop_0001" // create from traj_07 before the migration, trajectory only; its probe fails now
	PropOptimise       = "prop_0002" // create (optimisation) probed before the migration; its probe fails now
	PropUnitsUpdate    = "prop_0003" // update of the GBP convention: the P&L is in £ thousands
	PropSkip           = "prop_0004" // skip: a docs task the bank already covered
	PropConflictUpdate = "prop_0005" // update of RecRefJoin to item_ref; conflicts with PropConflictDelete
	PropConflictDelete = "prop_0006" // delete of RecRefJoin; conflicts with PropConflictUpdate
	PropOvergeneral    = "prop_0007" // create "stars are 1–5 in every fdbk table"; OvergeneralRefuteProbe refutes it
	PropUpdate         = "prop_0008" // update of RecAttrsG2 to the split tables
	PropUpdateProc     = "prop_0009" // update of RecWarrantyProc to attrs_g2_ext
	PropAcceptCreate   = "prop_0010" // create: attrs_g2_core and attrs_g2_ext join one-to-one; probe reproduces
	PropDelete         = "prop_0011" // delete of RecWrong
	PropNarrow         = "prop_0012" // narrow of RecOvergeneral to g1
	PropMerge          = "prop_0013" // merge of RecRevenueHeadA and RecRevenueHeadB
	PropQuarterCreate  = "prop_0014" // create: quarterly revenue per head (docs)
	PropSkipShop       = "prop_0015" // skip: a shop task the bank already covered
)

// ProposalIDs lists every proposal of the queue in queue order.
var ProposalIDs = []string{
	PropTrajectoryOnly, PropOptimise, PropUnitsUpdate, PropSkip, PropConflictUpdate,
	PropConflictDelete, PropOvergeneral, PropUpdate, PropUpdateProc, PropAcceptCreate,
	PropDelete, PropNarrow, PropMerge, PropQuarterCreate, PropSkipShop,
}

// FailingNowProposals are the proposals whose recorded probe runs fail
// against the current environments (they were recorded before the
// migration), sorted.
var FailingNowProposals = []string{PropTrajectoryOnly, PropOptimise}

// OvergeneralRefuteProbe is the shop probe that refutes [PropOvergeneral]:
// musical-instrument reviews run from 1 to 10 stars.
const OvergeneralRefuteProbe = "SELECT MIN(stars), MAX(stars) FROM fdbk_g3"

// Migration is when the shop schema migration was applied; trajectories
// and probe runs before it saw the old schema.
var Migration = time.Date(2026, 3, 16, 2, 0, 0, 0, time.UTC)

// Epoch is the fixed time the sample world's clock starts from and the
// modification time of every file under envs/docs.
var Epoch = time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)

// clock is the deterministic clock the sample bank is written with: every
// reading advances it by one second; set moves it to a moment of the story.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.t
	c.t = c.t.Add(time.Second)
	return t
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}
