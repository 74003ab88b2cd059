package hygiene

import (
	"slices"
	"sort"
)

// MaxMergeMembers bounds a duplicate cluster: one merge proposal folds at
// most this many records.
const MaxMergeMembers = 8

// cluster is a set of records every two of which are a kept duplicate
// pair, and the weakest of those pairs (its rationale's figure).
type cluster struct {
	members []int
	weakest pair
}

// duplicateClusters groups the kept pairs into clusters in which every
// member is a near-duplicate of every other — never a chain, where a
// record joins through a neighbour it resembles while differing from the
// rest (A~B, B~C and C~D once made a 4-way merge of records that named
// other columns, and at scale one of 284 records and 20 claims) — of at
// most MaxMergeMembers records. The strongest pairs join first. Clusters
// come in order of their first member.
func duplicateClusters(kept []pair) []cluster {
	byStrength := slices.Clone(kept)
	sort.SliceStable(byStrength, func(i, j int) bool { return byStrength[i].sim > byStrength[j].sim })
	dup := map[[2]int]bool{}
	for _, p := range kept {
		dup[[2]int{min(p.a, p.b), max(p.a, p.b)}] = true
	}
	isDup := func(x, y int) bool { return dup[[2]int{min(x, y), max(x, y)}] }
	of := map[int]int{} // record → its cluster's index
	var cs [][]int
	fits := func(members []int, more ...int) bool {
		if len(members)+len(more) > MaxMergeMembers {
			return false
		}
		for _, m := range members {
			for _, x := range more {
				if !isDup(m, x) {
					return false
				}
			}
		}
		return true
	}
	for _, p := range byStrength {
		ca, inA := of[p.a]
		cb, inB := of[p.b]
		switch {
		case !inA && !inB:
			of[p.a], of[p.b] = len(cs), len(cs)
			cs = append(cs, []int{p.a, p.b})
		case inA && !inB && fits(cs[ca], p.b):
			of[p.b] = ca
			cs[ca] = append(cs[ca], p.b)
		case inB && !inA && fits(cs[cb], p.a):
			of[p.a] = cb
			cs[cb] = append(cs[cb], p.a)
		case inA && inB && ca != cb && len(cs[cb]) > 0 && fits(cs[ca], cs[cb]...):
			for _, m := range cs[cb] {
				of[m] = ca
			}
			cs[ca], cs[cb] = append(cs[ca], cs[cb]...), nil
		}
	}
	var out []cluster
	index := map[int]int{} // cs index → out index
	for i, ms := range cs {
		if len(ms) < 2 {
			continue
		}
		sort.Ints(ms)
		index[i] = len(out)
		out = append(out, cluster{members: ms})
	}
	seen := map[int]bool{}
	for _, p := range kept {
		ca, inA := of[p.a]
		cb := of[p.b]
		k, ok := index[ca]
		if !inA || ca != cb || !ok {
			continue
		}
		if c := &out[k]; !seen[k] || p.sim < c.weakest.sim {
			seen[k], c.weakest = true, p
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].members[0] < out[j].members[0] })
	return out
}
