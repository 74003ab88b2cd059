// Package hygiene keeps a bank small and true. It finds near-duplicate
// records, records that contradict each other, records whose checks fail
// now and records no task has retrieved for a while, and turns each finding
// into a proposal (source "hygiene") whose rationale names the evidence: the
// members and what differs between them, the check that holds or fails,
// the trajectories that retrieved each record and how they ended. It never
// writes records; a person decides every proposal in the queue.
//
// Findings are keyed by a fingerprint (kind and record ids) stored in the
// proposal, so running hygiene again adds nothing while its earlier
// proposals are open.
package hygiene

import (
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/memreview/memreview/review"
	"github.com/memreview/memreview/review/screen"
)

// Source is the proposal source hygiene writes.
const Source = "hygiene"

// Kind is one kind of finding.
type Kind string

// The kinds of finding, in the order a run looks for them.
const (
	Duplicates     Kind = "duplicates"
	Contradictions Kind = "contradictions"
	Stale          Kind = "stale"
	Unused         Kind = "unused"
	// Poisoning screens every active record with the poisoning screen
	// (poisoning.go); it runs only when asked for (Only), since it reads
	// every record's every text.
	Poisoning Kind = "poisoning"
)

// Kinds lists every kind.
var Kinds = []Kind{Duplicates, Contradictions, Stale, Unused}

// ParseKind returns the kind named s ("" = every kind).
func ParseKind(s string) (Kind, error) {
	for _, k := range append(Kinds, Poisoning) {
		if string(k) == s {
			return k, nil
		}
	}
	if s == "" {
		return "", nil
	}
	return "", fmt.Errorf("hygiene: %q is not duplicates, contradictions, stale, unused or poisoning", s)
}

// Thresholds of the similarity measure (see similar.go and slots.go),
// chosen on the synthetic bank's planted paraphrases (BENCHMARKS.md,
// "Hygiene"): 0.4 keeps 98% of the planted pairs as candidates before the
// identifier and slot rules; the sample world's looser pairs (0.26 and
// 0.34) are found by the rare-identifier rule.
const (
	// DuplicateThreshold is the similarity from which two active records
	// of the same scope and category are near-duplicates.
	DuplicateThreshold = 0.4
	// RareThreshold is the lower similarity that suffices when the two
	// records are the only ones of their scope and category that name some
	// identifier (a table, a file, a code, a number).
	RareThreshold = 0.25
	// SubjectThreshold is the similarity, their claims left out, from
	// which two records of the same scope speak of the same subject.
	SubjectThreshold = 0.2
)

// Input is what one run looks at.
type Input struct {
	Records      []review.Record                 // active records (others are ignored)
	Checks       map[string][]review.CheckResult // last verify results, by record id
	Trajectories []review.Trajectory
	Open         []review.Proposal // the open proposals: idempotence, and cited in rationales
	// Rejected are hygiene's proposals a person rejected: a finding is not
	// proposed again while its records are at the versions it named.
	Rejected []review.Proposal
	Now      time.Time
	// Neighbours are pairs of records whose embeddings are near (the
	// service finds them in the vector index): duplicate candidates beside
	// word overlap, so a paraphrase is paired too. They are decided by the
	// same rules as every candidate pair.
	Neighbours []Neighbour
}

// Neighbour is two records (by id) and the cosine of their vectors.
type Neighbour struct {
	A, B       string
	Similarity float64
}

// Options say what to look for.
type Options struct {
	Env           string // only records of this environment ("" = all)
	Only          Kind   // "" = every kind
	MaxUnusedDays int    // 0 = review.DefaultMaxUnusedDays
	// Lemmas, when set, writes a merge proposal's combined lemma (a
	// curator model); without it the members' lemmas are joined.
	Lemmas LemmaWriter
	RunID  string // the hygiene run's id, for CuratorRun and probe-run ids
	// Screen is the poisoning screen for Poisoning (nil: screen.New(),
	// hosts not checked).
	Screen *screen.Screener
	// Focus, when set, makes the run incremental (incremental.go): only
	// findings that name one of these records are kept.
	Focus map[string]bool
}

// Finding is one thing hygiene found and the proposal it makes of it.
type Finding struct {
	Kind        Kind
	Fingerprint string
	Records     []string // the records it is about
	Proposal    review.Proposal
	Runs        []review.ProbeRun // evidence the proposal cites
	// Open is the id of an open proposal with the same fingerprint: the
	// finding was proposed before and is not proposed again.
	Open string
	// Rejected is the id of a rejected proposal with the same fingerprint
	// whose records have not changed since: the finding was judged and is
	// not proposed again. (A record changed since is new evidence.)
	Rejected string
}

// Report is what a run found.
type Report struct {
	RunID    string
	Findings []Finding
	// Incremental says the run kept only findings naming the Changed
	// records of Options.Focus (incremental.go).
	Incremental bool
	Changed     int
}

// New returns the findings whose proposals a run adds (those not already
// open, nor rejected with their records as they are).
func (r *Report) New() []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Open == "" && f.Rejected == "" {
			out = append(out, f)
		}
	}
	return out
}

// Run finds what opt asks for in in. The proposals of the findings not
// already open are ready for the service's AddProposals (with their Runs).
func Run(ctx context.Context, in Input, opt Options) (*Report, error) {
	if opt.RunID == "" {
		opt.RunID = RunID(in.Now)
	}
	// The records as Load gives them (active, of env, by id) are used as
	// they are: at a million records a copy weighs a third of a gigabyte.
	recs := in.Records
	if !slices.IsSortedFunc(recs, func(a, b review.Record) int { return strings.Compare(a.ID, b.ID) }) ||
		slices.ContainsFunc(recs, func(r review.Record) bool { return !inRun(&r, opt.Env) }) {
		recs = nil
		for _, r := range in.Records {
			if inRun(&r, opt.Env) {
				recs = append(recs, r)
			}
		}
		sort.Slice(recs, func(i, j int) bool { return recs[i].ID < recs[j].ID })
	}
	b := &builder{in: in, opt: opt, recs: recs, worth: review.WorthOf(in.Trajectories), open: map[string]string{}, rejected: map[string][]*review.Proposal{}}
	for _, p := range in.Open {
		if p.Fingerprint != "" && p.Status.Open() {
			b.open[p.Fingerprint] = p.ID
		}
	}
	for i, p := range in.Rejected {
		if p.Fingerprint != "" && p.Status == review.Rejected {
			b.rejected[p.Fingerprint] = append(b.rejected[p.Fingerprint], &in.Rejected[i])
		}
	}
	steps := []struct {
		kind Kind
		run  func(context.Context) error
	}{
		{Duplicates, b.duplicates}, {Contradictions, b.contradictions}, {Stale, b.stale}, {Unused, b.unused},
		{Poisoning, b.poisoning},
	}
	for _, s := range steps {
		if opt.Only != "" && opt.Only != s.kind || opt.Only == "" && s.kind == Poisoning {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := s.run(ctx); err != nil {
			return nil, err
		}
	}
	return &Report{RunID: opt.RunID, Findings: b.out, Incremental: opt.Focus != nil, Changed: len(opt.Focus)}, nil
}

// inRun says whether a run of env looks at r: active, of env when set.
func inRun(r *review.Record, env string) bool {
	return r.Status == review.Active && (env == "" || r.Scope.Env == env)
}

// RunID names a hygiene run started at now.
func RunID(now time.Time) string { return "hygiene_" + now.UTC().Format("20060102T150405.000") }

// builder holds one run's state.
type builder struct {
	in    Input
	opt   Options
	recs  []review.Record // active, in scope, by id
	worth map[string]review.Worth
	open  map[string]string // fingerprint → open proposal id
	// rejected holds the rejected proposals by fingerprint.
	rejected map[string][]*review.Proposal
	out      []Finding
	runs     int
	sim      *simIndex // built once for duplicates and contradictions
	trajs    map[string]*review.Trajectory
	// byTarget indexes the open proposals of other sources by target id.
	byTarget map[string][]int
}

// fingerprint keys a finding by its kind and record ids. Past
// fingerprintIDs ids (a large contradiction group) it names the first of
// them and a hash of all, so a key stays short.
func fingerprint(k Kind, ids ...string) string {
	ids = append([]string(nil), ids...)
	sort.Strings(ids)
	if len(ids) > fingerprintIDs {
		h := sha256.Sum256([]byte(strings.Join(ids, ",")))
		return fmt.Sprintf("hygiene/%s/%s,…%d records sha256:%x", k, strings.Join(ids[:fingerprintIDs], ","), len(ids), h[:12])
	}
	return "hygiene/" + string(k) + "/" + strings.Join(ids, ",")
}

// fingerprintIDs is how many ids a fingerprint names in full.
const fingerprintIDs = 16

// add records a finding, marking it open when its fingerprint is.
func (b *builder) add(f Finding) {
	if b.made(&f) {
		b.out = append(b.out, f)
	}
}

// made completes a finding the run makes (marked open when its
// fingerprint is) and says whether it makes it (an incremental run makes
// only those naming a changed record).
func (b *builder) made(f *Finding) bool {
	if !b.inFocus(f.Records) {
		return false
	}
	f.Open = b.open[f.Fingerprint]
	f.Rejected = b.rejectedAsIs(*f)
	p := &f.Proposal
	p.Source, p.Fingerprint, p.CuratorRun = Source, f.Fingerprint, b.opt.RunID
	p.Created = b.in.Now
	for _, r := range f.Runs {
		p.Evidence.ProbeRuns = append(p.Evidence.ProbeRuns, r.ID)
	}
	if others := b.alsoOpen(f.Records); others != "" {
		p.Rationale += " " + others
	}
	return true
}

// rejectedAsIs is the id of a rejected proposal of f's fingerprint that
// named every target of f at the version f names now, or "".
func (b *builder) rejectedAsIs(f Finding) string {
	for _, r := range b.rejected[f.Fingerprint] {
		seen := map[string]int{}
		for _, t := range r.Targets {
			seen[t.ID] = t.Version
		}
		same := len(r.Targets) == len(f.Proposal.Targets)
		for _, t := range f.Proposal.Targets {
			same = same && seen[t.ID] == t.Version
		}
		if same {
			return r.ID
		}
	}
	return ""
}

// alsoOpen names the open proposals (of any source) that touch ids, so the
// operator sees them side by side.
func (b *builder) alsoOpen(ids []string) string {
	if b.byTarget == nil {
		b.byTarget = map[string][]int{}
		for i, p := range b.in.Open {
			if !p.Status.Open() || p.Source == Source {
				continue
			}
			for _, t := range p.Targets {
				b.byTarget[t.ID] = append(b.byTarget[t.ID], i)
			}
		}
	}
	var names []string
	seen := map[int]bool{}
	for _, id := range ids {
		for _, i := range b.byTarget[id] {
			if p := &b.in.Open[i]; !seen[i] {
				seen[i] = true
				names = append(names, fmt.Sprintf("%s (%s of %s)", p.ID, p.Op, id))
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "Also open: " + strings.Join(names, ", ") + "."
}

// run makes a probe-run record of a check result for a proposal's evidence.
func (b *builder) run(c review.CheckResult) review.ProbeRun {
	b.runs++
	return review.ProbeRun{ID: fmt.Sprintf("run_%s_%d", b.opt.RunID, b.runs), Result: c.Now, At: c.At, Actor: Source}
}

// target is a proposal target at the record's current version.
func target(r *review.Record) review.Target { return review.Target{ID: r.ID, Version: r.Version} }

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// uses says in words how the tasks that retrieved a record ended.
func (b *builder) uses(id string) string {
	w := b.worth[id]
	if w.Retrieved == 0 {
		return "retrieved by no task"
	}
	s := fmt.Sprintf("retrieved by %d task%s, %d passed", w.Retrieved, plural(w.Retrieved), w.Passed)
	if w.Unrewarded > 0 {
		s += fmt.Sprintf(", %d without a reward", w.Unrewarded)
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
