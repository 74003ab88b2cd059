package hygiene

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/memreview/memreview/review"
)

// contradictions finds records of the same environment and task family
// about the same subject (the identifiers of one all appear in the other's,
// in order, and their other terms overlap at least SubjectThreshold) that
// disagree on a claim (a unit, a range, a name), and makes one finding per
// subject group: the records linked by such disagreements, listed by the
// claim each makes (contradictionGroup). Output grows with the records, not
// with the pairs: a subject that forty records state in three ways is a
// few proposals, not hundreds. A group of more than MaxContradictionMembers
// is split (splitGroup) into proposals of records that contradict each
// other directly, none lost.
func (b *builder) contradictions(ctx context.Context) error {
	six := b.index()
	// Subject terms: the record's terms without its claims' values.
	group := make([]string, len(b.recs))
	ids := make([][]string, len(b.recs))
	keys := newKeyer()
	for i := range b.recs {
		r := &b.recs[i]
		if len(six.claims[i]) == 0 || len(six.idents[i]) == 0 {
			group[i] = "\x01" // nothing to contradict: no ids, so paired with nothing
			continue
		}
		ids[i] = six.idents[i]
		group[i] = keys.join(r.Scope.Env, r.Scope.TaskFamily)
	}
	sets, v := analyse(len(b.recs), func(i int) []string {
		if group[i][0] == '\x01' {
			return nil
		}
		text := recordText(&b.recs[i])
		for _, c := range six.claims[i] {
			text = strings.ReplaceAll(text, c.text, " ")
		}
		return textTerms(text)
	})
	// A pair joins two groups (union-find); a pair whose records are
	// already in one group is not tested, so the tests grow with the
	// records, not with the candidate pairs.
	uf := newUnionFind(len(b.recs))
	linked := make([]bool, len(b.recs))
	var edges [][2]int32 // the pairs that joined two groups: direct contradictions, a spanning forest
	sig, conflicts := claimSigs(six.claims, group)
	eachClaimPair(ids, group, sig, conflicts, func(i, j int) {
		if uf.find(i) == uf.find(j) || !sameSubject(ids[i], ids[j], true) || v.similarity(sets[i], sets[j]) < SubjectThreshold {
			return
		}
		uf.union(i, j)
		linked[i], linked[j] = true, true
		edges = append(edges, [2]int32{int32(i), int32(j)})
	})
	byRoot := map[int][]int{}
	var roots []int
	for i, ok := range linked {
		if !ok {
			continue
		}
		r := uf.find(i)
		if byRoot[r] == nil {
			roots = append(roots, r)
		}
		byRoot[r] = append(byRoot[r], i) // in record order
	}
	slices.SortFunc(roots, func(x, y int) int { return byRoot[x][0] - byRoot[y][0] })
	byEdges := map[int][][2]int32{}
	for _, e := range edges {
		r := uf.find(int(e[0]))
		byEdges[r] = append(byEdges[r], e)
	}
	for _, r := range roots {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !b.inFocus(b.ids(byRoot[r])) {
			continue // an incremental run: no changed record in it
		}
		parts := splitGroup(byRoot[r], byEdges[r], MaxContradictionMembers)
		for k, part := range parts {
			f := b.contradictionFinding(part)
			if len(parts) > 1 {
				f.Proposal.Rationale += fmt.Sprintf(" (Part %d of %d: the %d records of this subject that contradict each other, directly or through others, are split into proposals of at most %d, each of records that contradict another of the same proposal directly.)",
					k+1, len(parts), len(byRoot[r]), MaxContradictionMembers)
			}
			b.add(f)
		}
	}
	return nil
}

// unionFind joins record indexes into groups.
type unionFind []int32

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	for i := range u {
		u[i] = int32(i)
	}
	return u
}

func (u unionFind) find(x int) int {
	for int(u[x]) != x {
		u[x] = u[u[x]] // path halving
		x = int(u[x])
	}
	return x
}

func (u unionFind) union(x, y int) {
	rx, ry := u.find(x), u.find(y)
	if rx != ry {
		u[max(rx, ry)] = int32(min(rx, ry))
	}
}

// Bounds of a contradiction rationale: how many records of a group it
// describes with their evidence, and how many ids it names in all.
const (
	describedMembers = 12
	namedMembers     = 60
)

// contradictionFinding is a subject group's one proposal. A member is one
// the evidence does not support when another member whose claim
// disagrees with its own has stronger evidence (see support): a delete of
// those. When the evidence decides nothing, an update of the least
// confident member asks the operator to edit it to what holds. The
// rationale lists the claims the group makes and who makes each, with the
// evidence of each record (of the first few, in a large group).
func (b *builder) contradictionFinding(members []int) Finding {
	six := b.index()
	// Members that claim the same are judged once: by claim signature.
	type side struct {
		members []int
		best    int // the strongest support among them
	}
	var sigs []string
	bySig := map[string]*side{}
	support := make(map[int]int, len(members))
	for _, m := range members {
		support[m] = b.support(m)
		k := claimKey(six.claims[m])
		s := bySig[k]
		if s == nil {
			s = &side{best: support[m]}
			bySig[k] = s
			sigs = append(sigs, k)
		}
		s.members = append(s.members, m)
		s.best = max(s.best, support[m])
	}
	said := map[int]string{} // member → the claim of its that another member's disagrees with
	lost := map[int]bool{}
	for x, kx := range sigs {
		for _, ky := range sigs[x+1:] {
			sx, sy := bySig[kx], bySig[ky]
			cl, ok := conflict(six.claims[sx.members[0]], six.claims[sy.members[0]])
			if !ok {
				continue
			}
			for k, s := range []*side{sx, sy} {
				other := sy
				if k == 1 {
					other = sx
				}
				for _, m := range s.members {
					if _, ok := said[m]; !ok {
						said[m] = cl[k].text
					}
					if other.best > support[m] {
						lost[m] = true
					}
				}
			}
		}
	}
	var claims []string // in order of first member
	byClaim := map[string][]int{}
	for _, m := range members {
		c := said[m]
		if byClaim[c] == nil {
			claims = append(claims, c)
		}
		byClaim[c] = append(byClaim[c], m)
	}
	described, named := 0, 0
	var parts []string
	var runs []review.ProbeRun
	for _, c := range claims {
		var who []string
		for _, m := range byClaim[c] {
			r := &b.recs[m]
			switch {
			case described < describedMembers:
				described++
				who = append(who, fmt.Sprintf("%s (%s)", r.ID, b.evidence(m)))
				runs = append(runs, b.checkRuns(r.ID)...)
			case named < namedMembers:
				who = append(who, r.ID)
			}
			named++
		}
		if n := len(byClaim[c]) - len(who); n > 0 {
			who = append(who, fmt.Sprintf("%d more", n))
		}
		parts = append(parts, fmt.Sprintf("%q: %s", c, strings.Join(who, ", ")))
	}
	first := &b.recs[members[0]]
	ids := b.ids(members)
	rat := fmt.Sprintf("Contradiction in %s among %d records about one subject, by what each says: %s.", scopeName(first), len(members), strings.Join(parts, "; "))
	f := Finding{Kind: Contradictions, Fingerprint: fingerprint(Contradictions, ids...), Records: sortedIDs(ids), Runs: runs}
	var losers []review.Target
	var loserIDs []string
	for _, m := range members {
		if lost[m] {
			losers = append(losers, target(&b.recs[m]))
			loserIDs = append(loserIDs, b.recs[m].ID)
		}
	}
	if len(losers) > 0 {
		if len(loserIDs) > namedMembers {
			loserIDs = append(loserIDs[:namedMembers], fmt.Sprintf("%d more", len(losers)-namedMembers))
		}
		rat += fmt.Sprintf(" The evidence does not support %s: delete %s (or narrow %s to where it holds).",
			strings.Join(loserIDs, ", "), pronoun(len(losers), "it", "them"), pronoun(len(losers), "it", "each"))
		f.Proposal = review.Proposal{Op: review.OpDelete, Targets: losers, Rationale: rat}
		return f
	}
	ask := first // the least confident one is the one to edit
	for _, m := range members {
		if r := &b.recs[m]; r.Confidence < ask.Confidence {
			ask = r
		}
	}
	rec := *ask
	rat += fmt.Sprintf(" Nothing decides it. Edit %s to what holds, or reject this and delete the others.", ask.ID)
	f.Proposal = review.Proposal{Op: review.OpUpdate, Targets: []review.Target{target(ask)}, Record: &rec, Rationale: rat}
	return f
}

// claimKey is what a record claims, as one string: records with the same
// key agree and disagree alike.
func claimKey(cs []claim) string {
	var sb strings.Builder
	for _, c := range cs {
		sb.WriteString(c.kind)
		for _, t := range c.terms {
			sb.WriteString("\x00")
			sb.WriteString(t)
		}
		sb.WriteString("\x01")
	}
	return sb.String()
}

func pronoun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
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
