package hygiene

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/memreview/memreview/review"
)

// contradictions finds records of the same environment and task family
// about the same subject (the identifiers of one all appear in the other's,
// in order, and their other terms overlap at least SubjectThreshold) that disagree on a claim (a unit, a range, a name). The one the
// evidence does not support (see support) gets a delete proposal naming
// the other; when nothing decides it, an update proposal asks the operator.
func (b *builder) contradictions(ctx context.Context) error {
	six := b.index()
	// Subject terms: the record's terms without its claims' values.
	texts := make([][]string, len(b.recs))
	group := make([]string, len(b.recs))
	ids := make([][]string, len(b.recs))
	for i := range b.recs {
		r := &b.recs[i]
		ids[i] = six.idents[i]
		group[i] = r.Scope.Env + "\x00" + r.Scope.TaskFamily
		if len(six.claims[i]) == 0 || len(ids[i]) == 0 {
			group[i] = "\x01" + r.ID // nothing to contradict
			continue
		}
		text := recordText(r)
		for _, c := range six.claims[i] {
			text = strings.ReplaceAll(text, c.text, " ")
		}
		texts[i] = terms(text)
	}
	sets, v := buildSets(texts)
	against := map[int][]int{} // loser → the records it contradicts
	why := map[[2]int][2]claim{}
	undecided := map[[2]int]bool{}
	for _, p := range claimPairs(ids, group) {
		cl, ok := conflict(six.claims[p.a], six.claims[p.b])
		if !ok || !sameSubject(ids[p.a], ids[p.b], true) || v.similarity(sets[p.a], sets[p.b]) < SubjectThreshold {
			continue
		}
		sa, sb := b.support(p.a), b.support(p.b)
		switch {
		case sa > sb:
			against[p.b] = append(against[p.b], p.a)
			why[[2]int{p.b, p.a}] = [2]claim{cl[1], cl[0]}
		case sb > sa:
			against[p.a] = append(against[p.a], p.b)
			why[[2]int{p.a, p.b}] = cl
		default:
			undecided[[2]int{p.a, p.b}] = true
			why[[2]int{p.a, p.b}] = cl
		}
	}
	losers := make([]int, 0, len(against))
	for l := range against {
		losers = append(losers, l)
	}
	sort.Ints(losers)
	for _, l := range losers {
		lr := &b.recs[l]
		var parts, fpIDs []string
		var runs []review.ProbeRun
		fpIDs = append(fpIDs, lr.ID)
		for _, w := range against[l] {
			wr := &b.recs[w]
			cl := why[[2]int{l, w}]
			parts = append(parts, fmt.Sprintf("%s says %q where %s says %q (%s: %s)", lr.ID, cl[0].text, wr.ID, cl[1].text, wr.ID, b.evidence(w)))
			fpIDs = append(fpIDs, wr.ID)
			runs = append(runs, b.checkRuns(wr.ID)...)
		}
		runs = append(runs, b.checkRuns(lr.ID)...)
		rat := fmt.Sprintf("Contradiction in %s: %s. The evidence does not support %s: %s. Delete it (or narrow it to where it holds).",
			scopeName(lr), strings.Join(parts, "; "), lr.ID, b.evidence(l))
		b.add(Finding{Kind: Contradictions, Fingerprint: fingerprint(Contradictions, fpIDs...), Records: sortedIDs(fpIDs), Runs: runs,
			Proposal: review.Proposal{Op: review.OpDelete, Targets: []review.Target{target(lr)}, Rationale: rat}})
	}
	var pairs [][2]int
	for p := range undecided {
		pairs = append(pairs, p)
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i][0] != pairs[j][0] {
			return pairs[i][0] < pairs[j][0]
		}
		return pairs[i][1] < pairs[j][1]
	})
	for _, p := range pairs {
		if err := ctx.Err(); err != nil {
			return err
		}
		a, c := &b.recs[p[0]], &b.recs[p[1]]
		ask := a // the less confident one is the one to edit
		if c.Confidence < a.Confidence {
			ask = c
		}
		cl := why[p]
		rec := *ask
		rat := fmt.Sprintf("Contradiction in %s: %s says %q where %s says %q, and nothing decides it (%s: %s; %s: %s). Edit %s to what holds, or reject this and delete the other.",
			scopeName(a), a.ID, cl[0].text, c.ID, cl[1].text, a.ID, b.evidence(p[0]), c.ID, b.evidence(p[1]), ask.ID)
		b.add(Finding{Kind: Contradictions, Fingerprint: fingerprint(Contradictions, a.ID, c.ID), Records: sortedIDs([]string{a.ID, c.ID}),
			Proposal: review.Proposal{Op: review.OpUpdate, Targets: []review.Target{target(ask)}, Record: &rec, Rationale: rat}})
	}
	return nil
}

// claimPairs returns the pairs of records of one group (a < b) such that
// one's rarest identifier appears in the other's: every pair whose
// identifiers one contains the other's is among them.
func claimPairs(ids [][]string, group []string) []pair {
	df := map[string]int{}
	postings := map[string][]int{}
	for i, xs := range ids {
		for _, x := range xs {
			k := group[i] + "\x00" + x
			df[k]++
			postings[k] = append(postings[k], i)
		}
	}
	var out []pair
	for i, xs := range ids {
		if len(xs) == 0 {
			continue
		}
		rarest := group[i] + "\x00" + xs[0]
		for _, x := range xs[1:] {
			if k := group[i] + "\x00" + x; df[k] < df[rarest] {
				rarest = k
			}
		}
		for _, j := range postings[rarest] {
			if i != j {
				out = append(out, pair{a: min(i, j), b: max(i, j)})
			}
		}
	}
	slices.SortFunc(out, byRecords)
	return slices.CompactFunc(out, func(x, y pair) bool { return x.a == y.a && x.b == y.b })
}

// support scores the evidence for record i: +2 when its checks hold now,
// −2 when one fails now, and the sign of passed minus failed among the
// tasks that retrieved it and the trajectory it came from.
func (b *builder) support(i int) int {
	r := &b.recs[i]
	s := 0
	switch b.checksHold(r.ID) {
	case 1:
		s += 2
	case -1:
		s -= 2
	}
	pass, fail := b.outcomes(r)
	switch {
	case pass > fail:
		s++
	case fail > pass:
		s--
	}
	return s
}

// checksHold is 1 when the record has verify results and all hold, -1 when
// one fails, 0 when it has none.
func (b *builder) checksHold(id string) int {
	cs := b.in.Checks[id]
	if len(cs) == 0 {
		return 0
	}
	for _, c := range cs {
		if review.Fails(c.Verdict) {
			return -1
		}
	}
	return 1
}

// outcomes counts the passed and failed tasks that retrieved the record,
// plus the trajectory it came from.
func (b *builder) outcomes(r *review.Record) (pass, fail int) {
	w := b.worth[r.ID]
	pass, fail = w.Passed, w.Failed()
	if t, ok := b.trajectory(r.Provenance.Trajectory); ok {
		switch {
		case t.Outcome.Succeeded():
			pass++
		case t.Outcome.Failed():
			fail++
		}
	}
	return pass, fail
}

func (b *builder) trajectory(id string) (*review.Trajectory, bool) {
	if id == "" {
		return nil, false
	}
	if b.trajs == nil {
		b.trajs = map[string]*review.Trajectory{}
		for i := range b.in.Trajectories {
			b.trajs[b.in.Trajectories[i].ID] = &b.in.Trajectories[i]
		}
	}
	t, ok := b.trajs[id]
	return t, ok
}

// evidence says in words what supports record i or not.
func (b *builder) evidence(i int) string {
	r := &b.recs[i]
	var parts []string
	switch b.checksHold(r.ID) {
	case 1:
		parts = append(parts, "its check holds now")
	case -1:
		parts = append(parts, "its check fails now")
	default:
		parts = append(parts, "it has no check")
	}
	if t, ok := b.trajectory(r.Provenance.Trajectory); ok {
		parts = append(parts, fmt.Sprintf("it came from %s, which %s", t.ID, outcomeWords(t.Outcome)))
	}
	parts = append(parts, b.uses(r.ID))
	return strings.Join(parts, ", ")
}

// outcomeWords says how a run ended, as the evidence reads: "passed",
// "failed", "gave no outcome", "ended: submitted". Only a reward fails.
func outcomeWords(o review.Outcome) string {
	switch {
	case o.Succeeded():
		return "passed"
	case o.Failed():
		return "failed"
	case o.Kind == review.OutcomeValue:
		return "ended: " + o.Value
	}
	return "gave no outcome"
}

// checkRuns returns the record's last verify results as probe runs, for a
// proposal's evidence.
func (b *builder) checkRuns(id string) []review.ProbeRun {
	var out []review.ProbeRun
	for _, c := range b.in.Checks[id] {
		out = append(out, b.run(c))
	}
	return out
}
