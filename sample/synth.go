package sample

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/store"
)

// SynthOptions size a synthetic bank.
type SynthOptions struct {
	Records      int   // records to write (ids mem_000001 …)
	Trajectories int   // trajectories to write (ids traj_000001 …)
	Seed         int64 // the same seed gives the same bank

	// Committed, when set, is called after each transaction of records
	// commits, with how many records the bank holds (ids mem_000001 … in
	// order, so a reader can follow them by id).
	Committed func(records int)
	// Inserted, when set, is called once every record is in (also when
	// there are none), with the bank's change sequence then: what Synth
	// writes after it are its edits of records already written.
	Inserted func(seq int64)

	batch int // records a transaction; 0: synthBatch (tests set less)
}

// synthBatch is how many records go into one PutRecords transaction.
const synthBatch = 5000

// synthEditEvery picks the records Synth edits after import: one in
// synthEditEvery gets a second version, one in synthEditEvery² a third.
const synthEditEvery = 97

// synthStart is when the first synthetic record was written: a year before
// the sample world's Epoch, one record every synthStep after it.
var synthStart = Epoch.AddDate(-1, 0, 0)

const synthStep = 5 * time.Minute

// Synth writes a synthetic bank of opt.Records records and opt.Trajectories
// trajectories into dir (created if missing; it must not already hold a
// bank), for benchmarks and for trying the tool at scale. Records are
// written by store.Store.PutRecords in batches of 5,000, in the
// vocabulary of the sample world (shop and docs) and four made-up
// environments, covering every category; about 1% of them are then edited
// through store.Store.DecideRecords, so they have two or three versions.
// The bank has no environments configured: its records carry no checks.
// The same options give the same bank, byte for byte in its export.
func Synth(dir string, opt SynthOptions) error {
	s, err := NewSynthStore(dir, opt)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := SynthInto(s, opt); err != nil {
		return err
	}
	return s.Close()
}

// NewSynthStore creates the bank Synth writes in dir (which must not hold
// one), with the clock that dates its edits, for SynthInto.
func NewSynthStore(dir string, opt SynthOptions) (*store.Store, error) {
	if opt.Records < 0 || opt.Trajectories < 0 {
		return nil, fmt.Errorf("sample: synth: negative size (records %d, trajectories %d)", opt.Records, opt.Trajectories)
	}
	clk := &clock{t: synthStart.Add(time.Duration(opt.Records)*synthStep + time.Hour)}
	if clk.t.Before(Epoch) {
		clk.t = Epoch
	}
	s, err := store.Create(dir, store.Options{Now: clk.now})
	if err != nil {
		return nil, fmt.Errorf("sample: synth: %w", err)
	}
	return s, nil
}

// SynthInto writes Synth's bank into s, made by NewSynthStore with the
// same options, and leaves s open: sample gen reads it while it is
// written (SynthOptions.Committed).
func SynthInto(s *store.Store, opt SynthOptions) error {
	if opt.Records < 0 || opt.Trajectories < 0 {
		return fmt.Errorf("sample: synth: negative size (records %d, trajectories %d)", opt.Records, opt.Trajectories)
	}
	trajs := make([]review.Trajectory, 0, min(opt.Trajectories, synthBatch))
	for j := range opt.Trajectories {
		trajs = append(trajs, synthTrajectory(opt.Seed, j, opt.Records))
		if len(trajs) == cap(trajs) || j == opt.Trajectories-1 {
			if err := s.PutTrajectories(trajs); err != nil {
				return fmt.Errorf("sample: synth: trajectories: %w", err)
			}
			trajs = trajs[:0]
		}
	}
	per := synthBatch
	if opt.batch > 0 {
		per = opt.batch
	}
	batch := make([]review.Record, 0, min(opt.Records, per))
	for i := range opt.Records {
		batch = append(batch, synthRecordAt(opt.Seed, i, opt.Trajectories)) // synth_planted.go
		if len(batch) == cap(batch) || i == opt.Records-1 {
			if err := s.PutRecords(batch, "synth", "synthetic import"); err != nil {
				return fmt.Errorf("sample: synth: records: %w", err)
			}
			batch = batch[:0]
			if opt.Committed != nil {
				opt.Committed(i + 1)
			}
		}
	}
	if opt.Inserted != nil {
		seq, err := s.LastSeq()
		if err != nil {
			return fmt.Errorf("sample: synth: %w", err)
		}
		opt.Inserted(seq)
	}
	for i := synthEditEvery / 2; i < opt.Records; i += synthEditEvery {
		edits := 1
		if (i/synthEditEvery)%synthEditEvery == 0 {
			edits = 2
		}
		for e := range edits {
			if err := synthEdit(s, opt.Seed, i, e); err != nil {
				return fmt.Errorf("sample: synth: edit %s: %w", synthID(i), err)
			}
		}
	}
	return nil
}

// SynthRecords returns the first n records of a synthetic bank with that
// seed, as Synth hands them to PutRecords when it writes no trajectories
// (so without trajectory provenance; the store then sets their version and
// update time), before its edits; for benchmarks that need the data
// without a bank. SynthRecords(n, s) is a prefix of SynthRecords(m, s) for
// n <= m.
func SynthRecords(n int, seed int64) []review.Record {
	out := make([]review.Record, n)
	for i := range out {
		out[i] = synthRecordAt(seed, i, 0)
	}
	return out
}

func synthID(i int) string { return fmt.Sprintf("mem_%06d", i+1) }

// synthRNG is the random source of item i of one kind: every item depends
// on the seed and its own number only.
func synthRNG(seed int64, kind uint64, i int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), kind<<40|uint64(i)))
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// pickEnv draws an environment by synthEnvWeights.
func pickEnv(r *rand.Rand) *synthEnv {
	total := 0
	for _, w := range synthEnvWeights {
		total += w
	}
	n := r.IntN(total)
	for i, w := range synthEnvWeights {
		if n < w {
			return &synthEnvs[i]
		}
		n -= w
	}
	return &synthEnvs[0]
}

// group returns a group's table suffix and its words ("g2", "electronics").
func (e *synthEnv) group(r *rand.Rand) (string, string) {
	g := pick(r, e.groups)
	suffix, words, _ := strings.Cut(g, " ")
	return suffix, words
}

// table draws a table name, giving "_gN" tables the group's suffix.
func (e *synthEnv) table(r *rand.Rand, suffix string) string {
	t := pick(r, e.tables)
	if base, ok := strings.CutSuffix(t, "_gN"); ok {
		return base + "_" + suffix
	}
	return t
}

// where names the environment the way a lemma would.
func (e *synthEnv) where() string {
	if e.files {
		return "the " + e.name + " workbooks"
	}
	return e.name + ".db"
}

// synthCategoryWeights: facts and procedures are the most common records.
var synthCategoryWeights = []int{20, 15, 12, 12, 14, 10, 9, 8}

func pickCategory(r *rand.Rand) review.Category {
	n := r.IntN(100)
	for i, w := range synthCategoryWeights {
		if n < w {
			return review.Categories[i]
		}
		n -= w
	}
	return review.Fact
}

// synthRecord is record i of the synthetic bank; it cites one of trajs
// trajectories when trajs > 0.
func synthRecord(seed int64, i, trajs int) review.Record {
	r := synthRNG(seed, 1, i)
	e := pickEnv(r)
	cat := pickCategory(r)
	suffix, gwords := e.group(r)
	t1, t2 := e.table(r, suffix), e.table(r, suffix)
	for t2 == t1 && len(e.tables) > 1 {
		t2 = e.table(r, suffix)
	}
	c1, c2 := pick(r, e.cols), pick(r, e.cols)
	k1, k2 := pick(r, e.keys), pick(r, e.keys)
	noun, unit, year := pick(r, e.nouns), pick(r, e.units), pick(r, synthYears)
	grp := fmt.Sprintf("%s (%s)", gwords, suffix)
	var lemma, trigger string
	var steps []string
	switch cat {
	case review.Fact:
		lemma = pick(r, []string{
			fmt.Sprintf("In %s, %s.%s holds %s, one value per %s.", e.where(), t1, c1, unit, k1),
			fmt.Sprintf("%s has one row per %s; %s is never NULL for %s.", t1, k1, c1, grp),
			fmt.Sprintf("%s.%s ranges from %d to %d in %s; values outside that are data-entry errors.", t1, c1, r.IntN(10), 10+r.IntN(990), year),
		})
		trigger = fmt.Sprintf("A task reads %s from %s.", c1, t1)
	case review.Relation:
		lemma = pick(r, []string{
			fmt.Sprintf("In %s, %s joins %s on %s.%s = %s.%s.", e.where(), t1, t2, t1, k1, t2, k2),
			fmt.Sprintf("%s and %s key on %s with exactly one row per %s for %s.", t1, t2, k1, k2, grp),
		})
		trigger = fmt.Sprintf("A task combines %s with %s.", t1, t2)
	case review.Convention:
		lemma = pick(r, []string{
			fmt.Sprintf("%s in %s is stored as %s; convert it before reporting %s.", c1, t1, unit, noun),
			fmt.Sprintf("Dates in %s (%s, %s) are %s; compare them as strings.", e.where(), c1, c2, pick(r, []string{"ISO-8601 text, YYYY-MM-DD", "UTC timestamps", "YYYY-MM months"})),
		})
		trigger = fmt.Sprintf("A task asks for %s in %s.", noun, pick(r, []string{"dollars", "pounds", "a date range", "one unit"}))
	case review.Procedure:
		agg := pick(r, synthAggs)
		lemma = fmt.Sprintf("To compute %s by %s, join %s to %s on %s, filter %s, and take %s.", noun, c1, t1, t2, k1, c2, agg)
		steps = []string{
			fmt.Sprintf("Join %s a to %s b on a.%s = b.%s", t1, t2, k1, k1),
			fmt.Sprintf("Filter b.%s", c2),
			fmt.Sprintf("%s over a.%s, grouped by %s", agg, c1, k2),
		}
		trigger = fmt.Sprintf("%s of %s with a %s condition.", pick(r, []string{"Average", "Total", "Count", "Share"}), noun, c2)
	case review.Warning:
		lemma = pick(r, []string{
			fmt.Sprintf("%s.%s is NULL for rows before %s; use COALESCE(%s, 0) when summing.", t1, c1, year, c1),
			fmt.Sprintf("%s (%s) stores %s as %s, unlike the other groups; normalise before comparing.", t1, gwords, c1, unit),
			fmt.Sprintf("%s is refreshed monthly and lags %s; recompute from %s when a task asks for current %s.", t1, t2, t2, noun),
		})
		trigger = fmt.Sprintf("Any %s comparison involving %s.", c1, suffix)
	case review.Strategy:
		lemma = fmt.Sprintf("For '%s' questions about %s, %s.", pick(r, synthQuestion), noun, pick(r, []string{
			fmt.Sprintf("require a minimum count (HAVING COUNT(*) >= %d) so rare %s cannot win", 5+r.IntN(30), noun),
			fmt.Sprintf("read the definitions of %s and %s before the first real query", t1, t2),
			fmt.Sprintf("map group names to table suffixes first: %s", grp),
			fmt.Sprintf("break ties by %s so the answer is stable", c1),
		}))
		trigger = fmt.Sprintf("Start of a %s task about %s.", e.name, noun)
	case review.Recovery:
		lemma = pick(r, []string{
			fmt.Sprintf("If a query on %s fails with '%s', re-read its definition and check schema_migrations: %s may have been renamed to %s.", t1, pick(r, synthErrors), k1, k2),
			fmt.Sprintf("If joining %s and %s finds nothing, the keys differ: %s uses %s, %s uses %s; map them first.", t1, t2, t1, k1, t2, k2),
		})
		steps = []string{fmt.Sprintf("List the definitions of tables named like '%s%%'", strings.SplitN(t1, "_", 2)[0]), "Compare the key columns", "Retry the join on the mapped key"}
		trigger = fmt.Sprintf("A remembered column of %s is missing or a join returns no rows.", t1)
	case review.Optimisation:
		lemma = pick(r, []string{
			fmt.Sprintf("Check %s's range with MIN/MAX before aggregating %s; %s.", c1, t1, pick(r, synthReasons)),
			fmt.Sprintf("Answer single-number questions about %s with one %s query; %s.", noun, pick(r, synthAggs), pick(r, synthReasons)),
		})
	}
	if r.IntN(10) < 3 {
		trigger = ""
	}
	if cat != review.Procedure && cat != review.Recovery || r.IntN(4) == 0 {
		steps = nil
	}
	tags := []string{pick(r, e.tags)}
	if r.IntN(2) == 0 {
		tags = append(tags, suffix)
	}
	if t := pick(r, e.tags); r.IntN(3) == 0 && t != tags[0] {
		tags = append(tags, t)
	}
	created := synthStart.Add(time.Duration(i) * synthStep)
	rec := review.Record{
		ID: synthID(i), Lemma: lemma, Category: cat, Trigger: trigger, Steps: steps,
		Scope:      review.Scope{Env: e.name, Tags: tags, TaskFamily: e.family},
		Confidence: math.Round((0.5+0.49*r.Float64())*100) / 100,
		Priority:   r.IntN(4),
		Status:     review.Active,
		Created:    created, Updated: created,
	}
	if r.IntN(100) < 3 {
		rec.Status = review.Retired
	}
	if trajs > 0 {
		from := 3 + 2*r.IntN(4)
		rec.Provenance = review.Provenance{Trajectory: synthTrajID(r.IntN(trajs)), Steps: &review.StepRange{From: from, To: from + 1 + r.IntN(4)}}
	}
	return rec
}

// synthEdit writes edit number e of record i as a new version: a narrower
// scope, a sharper trigger or a changed confidence, as an operator would.
func synthEdit(s *store.Store, seed int64, i, e int) error {
	cur, err := s.Record(synthID(i))
	if err != nil {
		return err
	}
	r := synthRNG(seed, 3, i*4+e)
	rec := *cur
	verb := review.Edit
	switch r.IntN(3) {
	case 0:
		verb = review.Narrow
		rec.Scope.Tags = append([]string{}, rec.Scope.Tags[0], fmt.Sprintf("g%d", 1+r.IntN(3)))
	case 1:
		rec.Trigger = "Only when " + strings.ToLower(strings.TrimSuffix(rec.Lemma, ".")) + "."
	default:
		rec.Confidence = math.Round(min(0.99, rec.Confidence+0.05)*100) / 100
	}
	_, err = s.DecideRecords(context.Background(), review.RecordRequest{
		Verb: verb, Record: &rec, Operator: pick(r, synthOperator), Note: pick(r, synthEditNote)})
	if errors.Is(err, review.ErrNotFound) {
		return fmt.Errorf("record vanished: %w", err)
	}
	return err
}
