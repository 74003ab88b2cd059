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
	// The kept pairs as sorted keys, and each record's cluster in a slice:
	// at a million records, maps of them were a tenth of the run.
	dup := make([]uint64, len(kept))
	n := 0
	for k, p := range kept {
		dup[k] = pairKey64(int(p.a), int(p.b))
		n = max(n, int(p.a)+1, int(p.b)+1)
	}
	slices.Sort(dup)
	isDup := func(x, y int) bool { _, ok := slices.BinarySearch(dup, pairKey64(x, y)); return ok }
	clusterOf := make([]int32, n) // record → its cluster's index + 1 (0: none)
	lookup := func(x int) (int, bool) { c := clusterOf[x]; return int(c) - 1, c > 0 }
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
		a, b := int(p.a), int(p.b)
		ca, inA := lookup(a)
		cb, inB := lookup(b)
		switch {
		case !inA && !inB:
			clusterOf[a], clusterOf[b] = int32(len(cs)+1), int32(len(cs)+1)
			cs = append(cs, []int{a, b})
		case inA && !inB && fits(cs[ca], b):
			clusterOf[b] = int32(ca + 1)
			cs[ca] = append(cs[ca], b)
		case inB && !inA && fits(cs[cb], a):
			clusterOf[a] = int32(cb + 1)
			cs[cb] = append(cs[cb], a)
		case inA && inB && ca != cb && len(cs[cb]) > 0 && fits(cs[ca], cs[cb]...):
			for _, m := range cs[cb] {
				clusterOf[m] = int32(ca + 1)
			}
			cs[ca], cs[cb] = append(cs[ca], cs[cb]...), nil
		}
	}
	var out []cluster
	index := make([]int, len(cs)) // cs index → out index (-1: none)
	for i, ms := range cs {
		index[i] = -1
		if len(ms) < 2 {
			continue
		}
		sort.Ints(ms)
		index[i] = len(out)
		out = append(out, cluster{members: ms})
	}
	seen := make([]bool, len(out))
	for _, p := range kept {
		ca, inA := lookup(int(p.a))
		cb, _ := lookup(int(p.b))
		if !inA || ca != cb || index[ca] < 0 {
			continue
		}
		k := index[ca]
		if c := &out[k]; !seen[k] || p.sim < c.weakest.sim {
			seen[k], c.weakest = true, p
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].members[0] < out[j].members[0] })
	return out
}

// pairKey64 is two record indexes as one key, the lesser first.
func pairKey64(x, y int) uint64 { return uint64(min(x, y))<<32 | uint64(max(x, y)) }
