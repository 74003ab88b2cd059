package hygiene

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/memreview/memreview/review"
)

// simIndex holds the terms of every record of a run (the duplicates drop
// sets, v, lemmas and lv when their pairs are decided).
type simIndex struct {
	sets   []termSet
	v      *vocab
	claims [][]claim
	idents [][]string
	lemmas []termSet // the lemma's terms alone, over lv
	lv     *vocab
}

func (b *builder) index() *simIndex {
	if b.sim != nil {
		return b.sim
	}
	claims := make([][]claim, len(b.recs))
	idents := make([][]string, len(b.recs))
	// Analysis is most of a run's linear cost: analyse spreads it over the
	// CPUs.
	// The text's terms and the lemma's come of one analysis (recordTerms).
	sets, v, lemmas, lv := analyse2(len(b.recs), func(i int) ([]string, []string) {
		idents[i] = identifiers(b.recs[i].Lemma)
		claims[i] = claimsOf(b.recs[i].Lemma)
		return recordTerms(&b.recs[i])
	})
	internWords(idents, claims)
	b.sim = &simIndex{sets: sets, v: v, claims: claims, idents: idents, lemmas: lemmas, lv: lv}
	return b.sim
}

// internWords makes the records' identifiers and claim words one string
// of each: a bank names few tables, columns and units in many records
// (100,000 synthetic records: 350,408 identifiers, 2,089 distinct).
func internWords(idents [][]string, claims [][]claim) {
	one := map[string]string{}
	of := func(x string) string {
		if c, ok := one[x]; ok {
			return c
		}
		one[x] = x
		return x
	}
	for _, xs := range idents {
		for k, x := range xs {
			xs[k] = of(x)
		}
	}
	for _, cs := range claims {
		for k := range cs {
			c := &cs[k]
			c.kind, c.text = of(c.kind), of(c.text)
			for j, t := range c.terms {
				c.terms[j] = of(t)
			}
		}
	}
}

// duplicates proposes one merge per cluster of near-duplicate records:
// active, not suspect, same scope and category, similarity at least
// DuplicateThreshold, and not contradicting each other — every two members
// of a cluster, and at most MaxMergeMembers (duplicateClusters).
func (b *builder) duplicates(ctx context.Context) error {
	six := b.index()
	group := make([]string, len(b.recs))
	keys := newKeyer()
	for i := range b.recs {
		r := &b.recs[i]
		group[i] = keys.join(r.Scope.Env, r.Scope.TaskFamily, string(r.Category))
		if b.recs[i].Suspect {
			group[i] = "\x01suspect " + b.recs[i].ID // compared with nothing
		}
	}
	// Above slotSample records the similar pairs are made within blocks
	// (blocks.go), by slots learned from a sample, and each is decided as
	// it is made: at a million records the candidates, collected, weighed
	// more than the rest of the run. At or below it every candidate is
	// collected first, since the slots are learned from all of them.
	var slots map[int32]bool
	var named *namedSeqs
	var kept []pair
	if len(b.recs) > slotSample {
		slots = b.sampleSlots(group)
		// Each worker decides the pairs it is given with its own names
		// (namedSeqs' caches) and keeps its own; they are sorted below.
		nameds := make([]*namedSeqs, b.candidateWorkers())
		keptBy := make([][]pair, len(nameds))
		b.candidatePairs(group, b.blockKeys(group, slots), func(w int, p pair) {
			if nameds[w] == nil {
				nameds[w] = newNamedSeqs(b, slots)
			}
			if b.duplicatePair(six, slots, nameds[w], p) {
				keptBy[w] = append(keptBy[w], p)
			}
		})
		kept = slices.Concat(keptBy...)
	} else {
		pairsBy := make([][]pair, b.candidateWorkers())
		b.candidatePairs(group, group, func(w int, p pair) { pairsBy[w] = append(pairsBy[w], p) })
		pairs := slices.Concat(pairsBy...)
		slots = slotTerms(six.lemmas, six.lv, pairs)
		named = newNamedSeqs(b, slots)
		for _, p := range pairs {
			if b.duplicatePair(six, slots, named, p) {
				kept = append(kept, p)
			}
		}
	}
	// In record order, the embedding neighbours last: the order the
	// clusters are built in (duplicateClusters).
	slices.SortFunc(kept, func(x, y pair) int {
		if x.vector != y.vector {
			if y.vector {
				return -1
			}
			return 1
		}
		return byRecords(x, y)
	})
	// The terms are done with: only the contradictions' claims and
	// identifiers are read again. At a million records they weighed a
	// quarter of a gigabyte, held while the merge proposals pile up.
	six.sets, six.v, six.lemmas, six.lv = nil, nil, nil, nil
	named = nil
	var cs []cluster
	for _, c := range duplicateClusters(kept) {
		if b.inFocus(b.ids(c.members)) { // an incremental run: a changed record in it
			cs = append(cs, c)
		}
	}
	fs, err := b.mergeFindings(ctx, cs)
	if err != nil {
		return err
	}
	// The findings are kept where they were built, not copied: at a
	// million records they are 141,000 (the clusters were kept to those
	// naming a changed record, so each is made).
	n := 0
	for k := range fs {
		if b.made(&fs[k]) {
			fs[n] = fs[k]
			n++
		}
	}
	fs = fs[:n]
	if len(b.out) == 0 {
		b.out = fs
	} else {
		b.out = append(b.out, fs...)
	}
	return nil
}

// mergeFindings builds the merge proposals of the clusters, in their
// order: spread over the CPUs (each reads the run's state and writes its
// own finding), unless a curator model writes the lemmas (one call at a
// time).
func (b *builder) mergeFindings(ctx context.Context, cs []cluster) ([]Finding, error) {
	fs := make([]Finding, len(cs))
	workers := runtime.GOMAXPROCS(0)
	if b.opt.Lemmas != nil {
		workers = 1
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := w; k < len(cs); k += workers {
				if err := ctx.Err(); err != nil {
					errs[w] = err
					return
				}
				f, err := b.mergeFinding(ctx, cs[k].members, cs[k].weakest)
				if err != nil {
					errs[w] = err
					return
				}
				fs[k] = f
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return fs, nil
}

// duplicatePair decides a candidate pair by the rules a bag of words
// cannot see.
func (b *builder) duplicatePair(six *simIndex, slots map[int32]bool, named *namedSeqs, p pair) bool {
	if _, ok := conflict(six.claims[p.a], six.claims[p.b]); ok {
		return false // a contradiction, not a duplicate
	}
	if ia, ib := six.idents[p.a], six.idents[p.b]; (len(ia) > 0 || len(ib) > 0) && !sameSubject(ia, ib, !p.rare && !p.vector) {
		return false // about another table, file, code or number
	}
	if swapsSlot(six.lemmas[p.a], six.lemmas[p.b], slots) {
		return false // the same sentence about another column, table or noun
	}
	if numbersDiffer(six.idents[p.a], six.idents[p.b]) {
		return false // one states a number the other does not ("ISO-8601" against "YYYY-MM")
	}
	// The same names in another order: "a lags b", "b lags a".
	return named.sameOrder(int(p.a), int(p.b))
}

// candidateWorkers is how many workers candidatePairs gives pairs on:
// an incremental run's input is small, and its groups go on the CPUs
// (pairWorkers); the full run's blocks may hold many pairs each, decided
// as they are made on one goroutine.
func (b *builder) candidateWorkers() int {
	if b.opt.Focus == nil {
		return 1
	}
	return pairWorkers()
}

// candidatePairs gives f every duplicate candidate pair once: the similar
// pairs of similarGroup as they are made, then the rare pairs of group
// (rarePairs) not already given, then the embedding neighbours
// (vectorPairs) not already given. A pair in two lists is given as the
// first (a similar pair, not rare). f(w, p) is called on worker w's
// goroutine (0 to candidateWorkers()-1), the similar pairs in no order
// where there are several workers (similarOnWorkers: its callers sort
// what they keep), the rest on the caller's as worker 0.
func (b *builder) candidatePairs(group, similarGroup []string, f func(w int, p pair)) {
	six := b.index()
	// Two records may be the only two naming more than one identifier.
	rare := slices.CompactFunc(b.rarePairs(group), func(x, y pair) bool { return x.a == y.a && x.b == y.b })
	vec := b.vectorPairs(group)
	workers := b.candidateWorkers()
	given := func(ps []pair) (map[[2]int32]int, [][]bool) {
		at := make(map[[2]int32]int, len(ps))
		for k, p := range ps {
			at[[2]int32{p.a, p.b}] = k
		}
		by := make([][]bool, workers) // each worker marks its own
		for w := range by {
			by[w] = make([]bool, len(ps))
		}
		return at, by
	}
	rareAt, rareGiven := given(rare)
	vecAt, vecGiven := given(vec)
	mark := func(w int, p pair) {
		if k, ok := rareAt[[2]int32{p.a, p.b}]; ok && !p.rare {
			rareGiven[w][k] = true
		}
		if k, ok := vecAt[[2]int32{p.a, p.b}]; ok {
			vecGiven[w][k] = true
		}
	}
	similarOnWorkers(six.sets, six.v, similarGroup, DuplicateThreshold, workers, func(w int, p pair) {
		if len(rareAt) > 0 || len(vecAt) > 0 {
			mark(w, p)
		}
		f(w, p)
	})
	for w := 1; w < workers; w++ {
		for k, ok := range rareGiven[w] {
			rareGiven[0][k] = rareGiven[0][k] || ok
		}
		for k, ok := range vecGiven[w] {
			vecGiven[0][k] = vecGiven[0][k] || ok
		}
	}
	for k, p := range rare {
		if !rareGiven[0][k] {
			mark(0, p)
			f(0, p)
		}
	}
	for k, p := range vec {
		if !vecGiven[0][k] {
			f(0, p)
		}
	}
}

// vectorPairs are the input's embedding neighbours of one group (same
// scope and category, not suspect), each once, in record order.
func (b *builder) vectorPairs(group []string) []pair {
	if len(b.in.Neighbours) == 0 {
		return nil
	}
	six := b.index()
	at := make(map[string]int, len(b.recs))
	for i := range b.recs {
		at[b.recs[i].ID] = i
	}
	known := map[[2]int]bool{}
	var out []pair
	for _, n := range b.in.Neighbours {
		i, ok1 := at[n.A]
		j, ok2 := at[n.B]
		if !ok1 || !ok2 || i == j || group[i] != group[j] {
			continue
		}
		i, j = min(i, j), max(i, j)
		if known[[2]int{i, j}] {
			continue
		}
		known[[2]int{i, j}] = true
		out = append(out, pair{a: int32(i), b: int32(j), sim: six.v.similarity(six.sets[i], six.sets[j]), vector: true, cos: float32(n.Similarity)})
	}
	slices.SortFunc(out, byRecords)
	return out
}

// rarePairs returns the pairs of records of one group that are the only
// two of it naming some identifier and whose similarity reaches
// RareThreshold: a paraphrase that shares little wording but the one table
// or file nothing else in its scope names.
func (b *builder) rarePairs(group []string) []pair {
	six := b.index()
	return rarePairsOf(six.sets, six.v, six.idents, group)
}

// rarePairsOf is rarePairs over the given records' sets and identifiers.
func rarePairsOf(sets []termSet, v *vocab, idents [][]string, group []string) []pair {
	byIdent := map[string][]int{}
	for i, ids := range idents {
		for _, id := range ids {
			k := group[i] + "\x00" + id
			if len(byIdent[k]) < 3 {
				byIdent[k] = append(byIdent[k], i)
			}
		}
	}
	var out []pair
	for _, ms := range byIdent {
		if len(ms) != 2 {
			continue
		}
		if sim := v.similarity(sets[ms[0]], sets[ms[1]]); sim >= RareThreshold {
			out = append(out, pair{a: int32(ms[0]), b: int32(ms[1]), sim: sim, rare: true})
		}
	}
	slices.SortFunc(out, byRecords)
	return out
}

// sharedRare names the identifiers a rare pair shares.
func (b *builder) sharedRare(p pair) []string {
	var out []string
	for _, x := range b.sim.idents[p.a] {
		if contains(b.sim.idents[p.b], x) {
			out = append(out, x)
		}
	}
	return out
}

// mergeFinding builds the merge proposal of one cluster.
func (b *builder) mergeFinding(ctx context.Context, members []int, weakest pair) (Finding, error) {
	recs := make([]*review.Record, len(members))
	ids := make([]string, len(members))
	for i, m := range members {
		recs[i] = &b.recs[m]
		ids[i] = recs[i].ID
	}
	// The survivor's wording leads: highest confidence, then the most
	// passed tasks, then the oldest id.
	sort.SliceStable(recs, func(i, j int) bool {
		if recs[i].Confidence != recs[j].Confidence {
			return recs[i].Confidence > recs[j].Confidence
		}
		if pi, pj := b.worth[recs[i].ID].Passed, b.worth[recs[j].ID].Passed; pi != pj {
			return pi > pj
		}
		return recs[i].ID < recs[j].ID
	})
	rest := make([]review.Record, 0, len(recs)-1)
	for _, r := range recs[1:] {
		rest = append(rest, *r)
	}
	// Every member is a target: the commit records them all as merged_from.
	combined := review.Combine(*recs[0], rest...)
	combined.Provenance.MergedFrom = nil
	merged := &combined
	by := ""
	if b.opt.Lemmas != nil {
		lemma, err := b.opt.Lemmas.CombinedLemma(ctx, b.candidates(recs))
		if err != nil {
			return Finding{}, fmt.Errorf("hygiene: merge of %s: %w", strings.Join(ids, ", "), err)
		}
		merged.Lemma, by = lemma, " The combined lemma was written by the curator model; steps, tags and checks are the union of the members'."
	}
	var targets []review.Target
	var desc []string
	for _, r := range recs {
		targets = append(targets, target(r))
		desc = append(desc, fmt.Sprintf("%s (confidence %.2f, %s)", r.ID, r.Confidence, b.uses(r.ID)))
	}
	rule := fmt.Sprintf("threshold %.2f", DuplicateThreshold)
	switch {
	case weakest.vector:
		rule = fmt.Sprintf("paired by their embeddings, cosine %.2f, though their wording differs", weakest.cos)
	case weakest.rare:
		rule = fmt.Sprintf("threshold %.2f for the only records of their scope and category that name %s", RareThreshold, strings.Join(b.sharedRare(weakest), ", "))
	}
	rat := fmt.Sprintf("Near-duplicates in %s · %s: %s; weighted term overlap of lemma, trigger and steps ≥ %.2f (%s). %s%s",
		scopeName(recs[0]), recs[0].Category, strings.Join(desc, ", "), weakest.sim, rule, differences(recs), by)
	return Finding{Kind: Duplicates, Fingerprint: fingerprint(Duplicates, ids...), Records: sortedIDs(ids),
		Proposal: review.Proposal{Op: review.OpMerge, Targets: targets, Record: merged, Rationale: rat}}, nil
}

func sortedIDs(ids []string) []string {
	out := append([]string(nil), ids...)
	sort.Strings(out)
	return out
}

func scopeName(r *review.Record) string {
	s := r.Scope.Env
	if s == "" {
		s = "(any env)"
	}
	if r.Scope.TaskFamily != "" {
		s += " · " + r.Scope.TaskFamily
	}
	return s
}

// differences says what each member has that the others lack: terms of
// the lemma, a trigger, steps, tags, checks.
func differences(recs []*review.Record) string {
	var parts []string
	all := make([]map[string]bool, len(recs))
	ts := make([][]string, len(recs))
	for i, r := range recs {
		all[i] = map[string]bool{}
		ts[i], _ = recordTerms(r)
		for _, t := range ts[i] {
			all[i][t] = true
		}
	}
	for i, r := range recs {
		var only []string
		for _, t := range ts[i] {
			shared := false
			for j := range recs {
				if j != i && all[j][t] {
					shared = true
					break
				}
			}
			if !shared {
				only = append(only, t)
			}
		}
		var has []string
		if len(only) > 0 {
			if len(only) > 8 {
				only = append(only[:8], "…")
			}
			has = append(has, "terms "+strings.Join(only, " "))
		}
		if r.Trigger != "" {
			has = append(has, "a trigger")
		}
		if n := len(r.Steps); n > 0 {
			has = append(has, fmt.Sprintf("%d step%s", n, plural(n)))
		}
		if n := len(r.Checks); n > 0 {
			has = append(has, fmt.Sprintf("%d check%s", n, plural(n)))
		}
		if len(has) > 0 {
			parts = append(parts, r.ID+" has "+strings.Join(has, ", "))
		}
	}
	if len(parts) == 0 {
		return "The members say the same."
	}
	return "Differences: " + strings.Join(parts, "; ") + "."
}
